package dev.trainadvisor.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pages of docs/ are checked as the README is: every block marked {@code <!-- output: ARGS -->} is what the command
 * prints now (ReadmeTest's check), an error block's command exits with 2; and every relative link of README.md and
 * docs/*.md (a Markdown link or image outside code) leads to a file or folder of the repository, and where it names
 * an anchor of a Markdown page, to a heading (GitHub's slug) or an {@code <a id>} of that page.
 */
class DocsTest {
    static final Path ROOT = Path.of("").toAbsolutePath();

    static List<Path> pages() throws IOException {
        List<Path> out = new ArrayList<>();
        out.add(Path.of("README.md"));
        try (Stream<Path> s = Files.list(Path.of("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(out::add);
        }
        return out;
    }

    @Test
    void outputBlocksOfTheDocsAreWhatTheCommandsPrint() throws IOException {
        int blocks = 0, errors = 0;
        for (Path p : pages()) {
            if (p.toString().equals("README.md")) continue;   // ReadmeTest
            String text = Files.readString(p);
            blocks += ReadmeTest.checkOutputBlocks(text, p.toString());
            errors += ReadmeTest.checkErrorBlocksExitWithTwo(text);
        }
        assertTrue(blocks >= 5, "output blocks in docs/: " + blocks);
        assertTrue(errors >= 1, "error blocks in docs/: " + errors);
    }

    private static final Pattern LINK = Pattern.compile("!?\\[(?:[^\\]\\[]|\\[[^\\]]*\\])*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern FENCE = Pattern.compile("(?ms)^```.*?^```");
    private static final Pattern INLINE_CODE = Pattern.compile("`[^`\\n]*`");

    /** The links of a page, outside fenced and inline code. */
    static List<String> links(String text) {
        String prose = INLINE_CODE.matcher(FENCE.matcher(text).replaceAll("")).replaceAll("");
        List<String> out = new ArrayList<>();
        Matcher m = LINK.matcher(prose);
        while (m.find()) out.add(m.group(1));
        return out;
    }

    /** GitHub's anchors of a Markdown page: each heading's slug (with -1, -2 for repeats) and each {@code <a id>}. */
    static Set<String> anchors(String text) {
        Set<String> out = new HashSet<>();
        String prose = FENCE.matcher(text).replaceAll("");
        for (String line : prose.split("\n")) {
            if (!line.startsWith("#")) continue;
            String h = line.replaceFirst("^#+\\s*", "").trim();
            StringBuilder b = new StringBuilder();
            for (char c : h.toLowerCase(Locale.ROOT).toCharArray()) {
                if (Character.isLetterOrDigit(c) || c == '-' || c == '_') b.append(c);
                else if (c == ' ') b.append('-');
            }
            String slug = b.toString();
            String s = slug;
            for (int i = 1; out.contains(s); i++) s = slug + "-" + i;
            out.add(s);
        }
        Matcher id = Pattern.compile("<a id=\"([^\"]+)\"").matcher(prose);
        while (id.find()) out.add(id.group(1));
        return out;
    }

    /** What is wrong with a page's relative links: a missing target, or an anchor its target page lacks. */
    static List<String> brokenLinks(Path page, String text) throws IOException {
        List<String> wrong = new ArrayList<>();
        for (String link : links(text)) {
            if (link.matches("(?i)^[a-z][a-z0-9+.-]*:.*")) continue;   // https:, mailto:
            int hash = link.indexOf('#');
            String file = hash < 0 ? link : link.substring(0, hash);
            String anchor = hash < 0 ? null : link.substring(hash + 1);
            if (file.isEmpty()) {   // an anchor of the page itself
                if (!anchors(text).contains(anchor)) wrong.add(page + ": " + link + " (no such heading on the page)");
                continue;
            }
            Path target = page.toAbsolutePath().getParent().resolve(file).normalize();
            if (!target.startsWith(ROOT)) wrong.add(page + ": " + link + " leads outside the repository");
            else if (!Files.exists(target)) wrong.add(page + ": " + link + " (no " + ROOT.relativize(target) + ")");
            else if (anchor != null && target.toString().endsWith(".md") && !anchors(Files.readString(target)).contains(anchor))
                wrong.add(page + ": " + link + " (no heading '#" + anchor + "' in " + ROOT.relativize(target) + ")");
        }
        return wrong;
    }

    @Test
    void everyRelativeLinkLeadsToAFileOfTheRepository() throws IOException {
        List<String> wrong = new ArrayList<>();
        int links = 0;
        for (Path p : pages()) {
            String text = Files.readString(p);
            links += links(text).size();
            wrong.addAll(brokenLinks(p, text));
        }
        assertTrue(wrong.isEmpty(), "broken links:\n" + String.join("\n", wrong));
        assertTrue(links > 50, "links found: " + links);
    }

    /** The link check itself: a missing file, a missing anchor and a path out of the repository are each caught. */
    @Test
    void theLinkCheckCatchesWhatItShould() throws IOException {
        Path page = Path.of("docs/x.md");
        String text = "[a](model.md#calibration) [b](nothere.md) [c](model.md#no-such-heading) [d](../../etc/passwd) "
                + "[e](https://example.com/x.md) `[f](inline.md)`\n```\n[g](fenced.md)\n```\n# A Heading, `with` code\n[h](#a-heading-with-code)";
        List<String> wrong = brokenLinks(page, text);
        assertEquals(3, wrong.size(), wrong.toString());
        assertTrue(wrong.get(0).contains("nothere.md"));
        assertTrue(wrong.get(1).contains("no-such-heading"));
        assertTrue(wrong.get(2).contains("outside"));
        assertFalse(String.join(" ", wrong).contains("inline.md") || String.join(" ", wrong).contains("fenced.md"));
    }
}
