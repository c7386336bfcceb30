package dev.trainadvisor.report;

import dev.trainadvisor.cli.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Reports escape everything (issue 23, item 5): a run whose name, model name and GPU name are injection payloads, and a
 * user's rule whose title, explanation and remedy are too, rendered as Markdown and HTML for one run and for a fleet
 * (whose file names carry payloads as well). Neither format may hold anything executable or remote: in Markdown no
 * link, image, reference definition, raw HTML or autolink other than the report's own anchors; in HTML no tag outside
 * those the reports write, no event handler, no link that leaves the page, nothing loaded from anywhere. Every payload's
 * text is still there to read.
 */
class HostileNamesTest {
    /** Payloads (issue 23 tried 11 in 19 places): links and images, raw HTML, autolinks, escapes that undo escapes. */
    static final List<String> PAYLOADS = List.of(
            "[x](javascript:alert(1))",
            "![](http://evil.example/p.png)",
            "<img src=http://evil.example/x.png onerror=alert(2)>",
            "<script>alert(3)</script>",
            "[r]: javascript:alert(4)",
            "<http://evil.example/autolink>",
            "\\[y\\](javascript:alert(5))",
            "`z`](javascript:alert(6))",
            "![i][r]",
            "<a href=\"javascript:alert(7)\">a</a>",
            "<!-- c --> <?php x ?> | pipe |");

    @TempDir
    Path tmp;

    record Out(int code, String out, String err) {}

    static synchronized Out run(String... args) {
        PrintStream oldOut = System.out, oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            int code = Main.run(args);
            return new Out(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }

    /** The PCIe example with payload {@code k} as its name, its model's and its GPU's (an inline A100 PCIe). */
    static String hostileRun(int k) {
        String p = yamlString(PAYLOADS.get(k));
        return """
                name: %s
                cluster:
                  gpu: {key: %s, name: %s, peak_tflops: {bf16: 312}, hbm_gb: 80, hbm_gbps: 1935, sms: 108}
                  nodes: 1
                  gpus_per_node: 8
                  intra_node: {link: PCIe4}
                model: {name: %s, layers: 32, hidden: 4096, heads: 32, ffn_hidden: 11008, vocab: 103168, gated_mlp: true}
                parallel: {tp: 1, pp: 1, dp: 8, zero_stage: 1}
                training: {seq_len: 2048, micro_batch_size: 2, micro_batches: 4, precision: bf16, flash_attention: true}
                metrics: {tflops_per_gpu: 99.1, tflops_convention: house, tokens_per_gpu_per_s: 2231.46}
                """.formatted(p, p, p, p);
    }

    static String yamlString(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** A rule whose title, explanation, remedy action and reason are payloads. */
    static String hostileRules() {
        StringBuilder b = new StringBuilder("package team.rules;\nimport dev.trainadvisor.facts.*;\nimport dev.trainadvisor.engine.Conclude;\n"
                + "import java.util.List;\n");
        for (int k = 0; k < PAYLOADS.size(); k++) {
            String p = PAYLOADS.get(k).replace("\\", "\\\\").replace("\"", "\\\"");
            b.append("rule \"finding ").append(k).append("\" @id(\"hostile-").append(k).append("\") @title(\"").append(p)
                    .append("\") @description(\"d\")\nwhen\n    $m : Materiality()\nthen\n    insertLogical(Conclude.finding(kcontext, "
                            + "Severity.LOW, Explain.start().text(\"").append(p).append("\")));\nend\n");
        }
        return b.toString();
    }

    @Test
    void oneRunsReportsHoldNothingExecutableOrRemote() throws IOException {
        for (int k = 0; k < PAYLOADS.size(); k++) {
            Path run = tmp.resolve("run-" + k + ".yaml");
            Files.writeString(run, hostileRun(k));
            Out md = run("advise", run.toString(), "--format", "md");
            assertEquals(0, md.code(), hostileRun(k) + md.err());
            assertInertMarkdown(md.out(), PAYLOADS.get(k));
            Out html = run("advise", run.toString(), "--format", "html");
            assertEquals(0, html.code(), html.err());
            assertInertHtml(html.out(), false);
        }
    }

    @Test
    void theRulesPayloadsStayText() throws IOException {
        Path rules = Files.createDirectories(tmp.resolve("rules"));
        Files.writeString(rules.resolve("hostile.drl"), hostileRules());
        Out md = run("advise", "examples/internlm-7b-pcie-1node.yaml", "--format", "md", "--rules", rules.toString());
        assertEquals(0, md.code(), md.err());
        for (String p : PAYLOADS) assertInertMarkdown(md.out(), p);
        Out html = run("advise", "examples/internlm-7b-pcie-1node.yaml", "--format", "html", "--rules", rules.toString());
        assertInertHtml(html.out(), false);
    }

    @Test
    void aFleetOfHostileRunsAndFileNamesHoldsNothingExecutableOrRemote() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("fleet"));
        for (int k = 0; k < PAYLOADS.size(); k++) {
            // a file name may hold all of the payload but '/'
            String name = "run-" + k + "-" + PAYLOADS.get(k).replace('/', '_') + ".yaml";
            Files.writeString(dir.resolve(name), hostileRun(k));
        }
        Files.writeString(dir.resolve("broken " + PAYLOADS.get(0).replace('/', '_') + ".yaml"), "name: [x](javascript:alert(1))\n  - :");
        Out md = run("batch", dir.toString(), "--format", "md");
        assertEquals(2, md.code(), md.err());
        for (String p : PAYLOADS) assertInertMarkdown(md.out(), p);
        Out html = run("batch", dir.toString(), "--format", "html");
        assertInertHtml(html.out(), true);
    }

    /** Markdown's link, image and reference syntax (], then (, [ or :) not escaped by an odd number of backslashes. */
    static final Pattern LINK = Pattern.compile("(\\\\*)\\]([(\\[:])");
    /** What starts raw HTML or an autolink. */
    static final Pattern TAG = Pattern.compile("<[A-Za-z/!?]");
    /** The report's own: the fleet's anchors and its links to them. */
    static final Pattern OWN_ANCHOR = Pattern.compile("<a id=\"run-\\d+\"></a>");

    /** A code span: inert, and unbreakable since a backtick in the user's text is written as a quote. */
    static final Pattern CODE_SPAN = Pattern.compile("`[^`\n]*`");

    static void assertInertMarkdown(String report, String payload) {
        String md = CODE_SPAN.matcher(report).replaceAll("``");
        Matcher m = LINK.matcher(md);
        while (m.find()) {
            boolean escaped = m.group(1).length() % 2 == 1;
            boolean own = m.group(2).equals("(") && md.startsWith("(#run-", m.end() - 1);
            assertTrue(escaped || own, "link syntax at " + m.start() + ": " + around(md, m.start()));
        }
        String withoutOwn = OWN_ANCHOR.matcher(md).replaceAll("");
        Matcher t = TAG.matcher(withoutOwn);
        assertFalse(t.find(), () -> "raw HTML or an autolink: " + around(withoutOwn, t.start()));
        // the payload is still there to read: its letters, whatever was escaped around them
        String letters = payload.replaceAll("[^A-Za-z0-9]", "");
        String shown = report.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
        assertTrue(shown.replaceAll("[^A-Za-z0-9]", "").contains(letters), "the payload's text is kept: " + payload);
    }

    /** The tags the reports write, read from the examples' own reports (one run, and a fleet). */
    static Set<String> ownTags() {
        Set<String> tags = new java.util.TreeSet<>();
        for (String html : List.of(run("advise", "examples/internlm-7b-pcie-1node.yaml", "--format", "html").out(),
                run("batch", "examples", "--format", "html").out())) {
            Matcher m = Pattern.compile("<([A-Za-z][A-Za-z0-9-]*)").matcher(html);
            while (m.find()) tags.add(m.group(1).toLowerCase(java.util.Locale.ROOT));
        }
        assertTrue(tags.containsAll(List.of("html", "table", "svg", "a")), tags.toString());
        return tags;
    }

    static Set<String> ownTags;

    static void assertInertHtml(String html, boolean fleet) {
        if (ownTags == null) ownTags = ownTags();
        Matcher tag = Pattern.compile("<(/?)([A-Za-z][A-Za-z0-9-]*)([^>]*)>").matcher(html);
        while (tag.find()) {
            String name = tag.group(2).toLowerCase(java.util.Locale.ROOT);
            assertTrue(ownTags.contains(name), "tag <" + name + ">: " + around(html, tag.start()));
            Matcher attr = Pattern.compile("([A-Za-z:-]+)\\s*=\\s*\"([^\"]*)\"").matcher(tag.group(3));
            while (attr.find()) {
                String a = attr.group(1).toLowerCase(java.util.Locale.ROOT);
                assertFalse(a.startsWith("on"), "an event handler: " + around(html, tag.start()));
                assertFalse(Set.of("src", "xlink:href", "action", "formaction", "data", "srcset").contains(a),
                        "nothing loaded: " + around(html, tag.start()));
                if (a.equals("href")) assertTrue(attr.group(2).startsWith("#"), "a link inside the page only: " + around(html, tag.start()));
            }
        }
        // the one script is the fleet's sorting, character for character
        int scripts = html.split("<script", -1).length - 1;
        assertEquals(fleet ? 1 : 0, scripts);
        if (fleet) assertTrue(html.contains("<script>" + FleetReport.SORT_SCRIPT + "</script>"), "the sort script alone");
        assertFalse(Pattern.compile("url\\(\\s*[^#\\s]", Pattern.CASE_INSENSITIVE).matcher(html).find(),
                "no url() but to the page's own patterns: nothing fetched");
    }

    static String around(String s, int at) {
        return s.substring(Math.max(0, at - 60), Math.min(s.length(), at + 60)).replace("\n", "\\n");
    }
}
