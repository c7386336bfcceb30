package dev.trainadvisor.docs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every document the project cites is in the repository or cited by public link: a {@code .md} file named in a comment
 * of the Java sources (main and test), in a string of the knowledge base or the model presets (their {@code source}
 * and {@code notes} fields), in the benchmarks, the examples, the rules, README.md or docs/ must be a file of the
 * repository (relative to the citing file, or to the repository's root, or, for a bare name, a file of that name in
 * it), unless the same line (a JSON string: the same string) gives a public link ({@code https://}, {@code github.com/})
 * to where it lives. So a note kept outside the repository fails; "docs/logs.md" and
 * "scripts/train/benchmarking/README.md of https://github.com/mosaicml/llm-foundry" pass.
 */
class CitationsTest {
    static final Path ROOT = Path.of("").toAbsolutePath();
    static final Pattern MD = Pattern.compile("[A-Za-z0-9_./-]*[A-Za-z0-9_-]\\.md\\b");
    static final Pattern URL = Pattern.compile("(?i)(https?://|www\\.)\\S+");
    static final Pattern PUBLIC = Pattern.compile("(?i)https?://|github\\.com/");
    static final List<String> TREES = List.of("src/main/java", "src/test/java", "knowledge-base", "model", "bench", "examples",
            "rules", "docs", "README.md", "src/test/resources/logs/history/SOURCES.md");

    /** The benchmarks' measurements write NaN where a value is missing. */
    static final ObjectMapper JSON = com.fasterxml.jackson.databind.json.JsonMapper.builder()
            .enable(com.fasterxml.jackson.core.json.JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();

    /** A citing line: where it is and its text. */
    record Line(Path file, int number, String text) {}

    static Set<String> fileNames() throws IOException {
        Set<String> out = new HashSet<>();
        try (Stream<Path> s = Files.walk(ROOT)) {
            s.filter(p -> !p.startsWith(ROOT.resolve(".git")) && !p.startsWith(ROOT.resolve("target")) && Files.isRegularFile(p))
                    .forEach(p -> out.add(p.getFileName().toString()));
        }
        return out;
    }

    /** The text of a Java source's comments, by line (a line without comment is empty). */
    static List<String> javaComments(String src) {
        List<StringBuilder> lines = new ArrayList<>();
        lines.add(new StringBuilder());
        int state = 0;   // 0 code, 1 line comment, 2 block comment, 3 string, 4 char, 5 text block
        for (int i = 0; i < src.length(); i++) {
            char c = src.charAt(i);
            if (c == '\n') {
                lines.add(new StringBuilder());
                if (state == 1) state = 0;
                continue;
            }
            StringBuilder cur = lines.get(lines.size() - 1);
            switch (state) {
                case 0 -> {
                    if (src.startsWith("//", i)) { state = 1; i++; }
                    else if (src.startsWith("/*", i)) { state = 2; i++; }
                    else if (src.startsWith("\"\"\"", i)) { state = 5; i += 2; }
                    else if (c == '"') state = 3;
                    else if (c == '\'') state = 4;
                }
                case 1 -> cur.append(c);
                case 2 -> {
                    if (src.startsWith("*/", i)) { state = 0; i++; }
                    else cur.append(c);
                }
                case 3 -> { if (c == '\\') i++; else if (c == '"') state = 0; }
                case 4 -> { if (c == '\\') i++; else if (c == '\'') state = 0; }
                case 5 -> { if (c == '\\') i++; else if (src.startsWith("\"\"\"", i)) { state = 0; i += 2; } }
                default -> throw new IllegalStateException();
            }
        }
        return lines.stream().map(StringBuilder::toString).toList();
    }

    static void strings(JsonNode n, List<String> out) {
        if (n.isTextual()) out.add(n.asText());
        else n.forEach(x -> strings(x, out));
        if (n.isObject()) n.fieldNames().forEachRemaining(out::add);
    }

    /** The lines of a file that may cite a document. */
    static List<Line> citingLines(Path f) throws IOException {
        String name = f.getFileName().toString();
        List<Line> out = new ArrayList<>();
        if (name.endsWith(".java")) {
            List<String> c = javaComments(Files.readString(f));
            for (int i = 0; i < c.size(); i++) if (!c.get(i).isBlank()) out.add(new Line(f, i + 1, c.get(i)));
        } else if (name.endsWith(".json")) {
            List<String> s = new ArrayList<>();
            strings(JSON.readTree(f.toFile()), s);
            for (String x : s) out.add(new Line(f, 0, x));
        } else if (name.matches(".*\\.(md|py|sh|yaml|yml|drl|txt|cu|cfg|toml)$") || !name.contains(".")) {
            String text = new String(Files.readAllBytes(f), StandardCharsets.UTF_8);
            String[] lines = text.split("\n", -1);
            for (int i = 0; i < lines.length; i++) out.add(new Line(f, i + 1, lines[i]));
        }
        return out;
    }

    /** The cited .md files of a line that are neither in the repository nor given with a public link. */
    static List<String> unresolved(Line line, Set<String> names) {
        List<String> out = new ArrayList<>();
        if (PUBLIC.matcher(line.text()).find()) return out;   // cited with where it lives
        Matcher m = MD.matcher(URL.matcher(line.text()).replaceAll(" "));
        while (m.find()) {
            String cited = m.group();
            Path fromFile = line.file().toAbsolutePath().getParent().resolve(cited).normalize();
            Path fromRoot = ROOT.resolve(cited).normalize();
            boolean inRepo = (fromFile.startsWith(ROOT) && Files.exists(fromFile)) || (fromRoot.startsWith(ROOT) && Files.exists(fromRoot))
                    || (!cited.contains("/") && names.contains(cited));
            if (!inRepo) out.add(ROOT.relativize(line.file().toAbsolutePath()) + ":" + line.number() + ": " + cited);
        }
        return out;
    }

    @Test
    void everyCitedDocumentIsInTheRepositoryOrLinked() throws IOException {
        Set<String> names = fileNames();
        List<String> wrong = new ArrayList<>();
        int files = 0;
        for (String tree : TREES) {
            List<Path> paths;
            try (Stream<Path> s = Files.walk(ROOT.resolve(tree))) {
                paths = s.filter(Files::isRegularFile).sorted().toList();
            }
            for (Path f : paths) {
                files++;
                for (Line l : citingLines(f)) wrong.addAll(unresolved(l, names));
            }
        }
        assertTrue(files > 400, "files read: " + files);
        assertTrue(wrong.isEmpty(), "documents cited that are not in the repository (cite a file of docs/ or a public link):\n"
                + String.join("\n", wrong));
    }

    /** The check itself: a note outside the repository is caught; a file of it, a linked document and code are not. */
    @Test
    void theCheckCatchesANoteOutsideTheRepository() throws IOException {
        Set<String> names = fileNames();
        Path f = ROOT.resolve("src/main/java/dev/trainadvisor/X.java");
        List<String> wrong = new ArrayList<>();
        for (String text : List.of("(log-formats.md section 2)", "see ../shared/DESIGN.md", "docs/logs.md (Megatron-LM)",
                "README.md", "scripts/train/benchmarking/README.md of https://github.com/mosaicml/llm-foundry",
                "see https://github.com/x/y/blob/main/docs/a.md"))
            wrong.addAll(unresolved(new Line(f, 1, text), names));
        assertEquals(2, wrong.size(), wrong.toString());
        List<String> comments = javaComments("String s = \"fleet.md\"; // see notes.md\n/* a.md\n b.md */ int x; char c = '\"';");
        assertEquals(" see notes.md", comments.get(0));
        assertEquals(" a.md", comments.get(1));
        assertEquals(" b.md ", comments.get(2));
    }
}
