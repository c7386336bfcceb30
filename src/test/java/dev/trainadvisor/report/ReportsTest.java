package dev.trainadvisor.report;

import dev.trainadvisor.advice.Advice;
import dev.trainadvisor.advice.TrainAdvisor;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The batch table's ranking and CSV, and the HTML page, on the motivating case. */
class ReportsTest {
    static final List<String> FILES = List.of("internlm-7b-nvlink-1node.yaml", "internlm-7b-pcie-1node.yaml",
            "internlm-7b-pcie-2nodes.yaml");

    static List<Advice> advice() {
        return FILES.stream().map(f -> {
            RunSpec s = new SpecReader().read(Path.of("examples", f));
            return TrainAdvisor.advise(s.cluster(), s.run());
        }).toList();
    }

    /**
     * The fleet ranks by GPU-hours lost against what the model says is achievable: the PCIe run, as fast as the model
     * predicts on PCIe but with a HIGH intra-node cause and NVLink nodes at x2, ranks above the NVLink run, which is as
     * fast as predicted with no cause. Lost per hour of running = GPUs x max(0, 1 - observed / predicted, 1 - 1 / best
     * same-math speedup), computed here from the advice's own numbers.
     */
    @Test
    void batchRanksByGpuHoursLostAgainstWhatIsAchievable() {
        List<Advice> a = advice();
        BatchTable t = BatchTable.of(a, FILES);
        for (int i = 1; i < t.rows().size(); i++)
            assertTrue(t.rows().get(i - 1).lostGpuHoursPerHour() >= t.rows().get(i).lostGpuHoursPerHour(), t.rows().toString());
        for (BatchTable.Row r : t.rows()) {
            Advice x = a.get(FILES.indexOf(r.file()));
            double best = x.recommendations().stream().filter(rec -> rec.sameMath())
                    .mapToDouble(rec -> rec.speedup()).max().orElse(1);
            double lost = Math.max(0, Math.max(1 - x.observed().tflopsHouse() / x.expected().tflopsPerGpu(), 1 - 1 / best));
            assertEquals(8 * (FILES.indexOf(r.file()) == 2 ? 2 : 1) * lost, r.lostGpuHoursPerHour(), 1e-9, r.file());
            assertTrue(Double.isNaN(r.hours()), "the examples log no step count: counted per hour of running");
            assertEquals(BatchTable.Standing.RATE, r.standing());
            assertTrue(Double.isNaN(r.lostGpuHours()), "a rate is no total: " + r);
        }
        assertEquals(List.of("internlm-7b-pcie-2nodes.yaml", "internlm-7b-pcie-1node.yaml", "internlm-7b-nvlink-1node.yaml"),
                t.rows().stream().map(BatchTable.Row::file).toList());
        BatchTable.Row pcie = t.rows().stream().filter(r -> r.file().equals("internlm-7b-pcie-1node.yaml")).findFirst().orElseThrow();
        assertEquals("intra-node-bandwidth", pcie.topCause());
        assertEquals("nvlink-nodes", pcie.bestRemedy());
        assertEquals(8, pcie.gpus());
        // NVLink nodes at x1.98: 8 x (1 - 1 / 1.98) = 3.96 GPU-hours per hour
        assertEquals(3.96, pcie.lostGpuHoursPerHour(), 0.02);
        // the prediction-only loss is kept beside it: the PCIe run is 4% above its prediction
        assertEquals(0, pcie.lostFraction(), 1e-12);
    }

    /** With the steps a log covers, GPU-hours lost are over the hours of running: steps x step time. */
    @Test
    void gpuHoursLostCountTheHoursTheLogCovers() throws Exception {
        var tree = (com.fasterxml.jackson.databind.node.ObjectNode) SpecReader.parse(Path.of("examples", FILES.get(1)));
        ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("metrics")).put("steps", 1000).put("step_time_s", 7.2);
        RunSpec s = new SpecReader().read(tree, "steps.yaml");
        Advice a = TrainAdvisor.advise(s.cluster(), s.run());
        BatchTable.Row r = BatchTable.of(List.of(a), List.of("steps.yaml")).rows().get(0);
        // 1000 steps x 7.2 s = 2 hours
        assertEquals(2.0, r.hours(), 1e-9);
        assertEquals(2.0 * r.lostGpuHoursPerHour(), r.lostGpuHours(), 1e-9);
        assertEquals(BatchTable.Standing.TOTAL, r.standing());
    }

    /** A rank order the run gives is in the header's layout, as the user wrote it; a run without one says none. */
    @Test
    void theLayoutLineSaysTheRankOrderTheRunGave() throws Exception {
        var tree = (com.fasterxml.jackson.databind.node.ObjectNode) SpecReader.parse(Path.of("examples", FILES.get(1)));
        ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("parallel")).put("rank_order", "tp-cp-pp-dp");
        RunSpec s = new SpecReader().read(tree, "order.yaml");
        String md = Markdown.of(TrainAdvisor.advise(s.cluster(), s.run()));
        String layout = md.lines().filter(l -> l.startsWith("**Layout:**")).findFirst().orElseThrow();
        assertTrue(layout.contains(", dp " + s.run().parallel().dp() + " (ranks tp-cp-pp-dp), ZeRO"), layout);
        assertFalse(Markdown.of(advice().get(1)).contains("(ranks "), "no order given");
    }

    @Test
    void csvHasTheHeaderOneLinePerRunAndQuotesWhatNeedsIt() {
        BatchTable t = BatchTable.of(advice(), FILES);
        String[] lines = t.csv().split("\n");
        assertEquals(1 + FILES.size(), lines.length);
        assertTrue(lines[0].startsWith("run,file,gpus,gpu,model,observed_tokens_per_gpu_per_s"), lines[0]);
        BatchTable.Row odd = new BatchTable.Row("a,b", "x\"y.yaml", 1, "g", "m", 1, 2, 0.5, 0.5, 0.1, "c", "high", 0.2, "", Double.NaN,
                Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, BatchTable.Standing.RATE);
        String csv = new BatchTable(List.of(odd)).csv().split("\n")[1];
        assertTrue(csv.startsWith("\"a,b\",\"x\"\"y.yaml\",1,"), csv);
        assertTrue(csv.endsWith(",,,,,,,,,rate"), "no remedy, no speedup, no hours: empty fields: " + csv);
    }

    @Test
    void htmlIsOneSelfContainedPageWithChartsAndEscapedText() {
        Advice a = advice().get(1);
        String html = Html.of(a);
        assertTrue(html.startsWith("<!DOCTYPE html>"));
        assertTrue(html.contains("<svg"), "inline SVG charts");
        assertFalse(html.contains("<script"), "no scripts in a one-run report");
        assertFalse(html.contains("src=") || html.contains("href=") || html.contains("url(http") || html.contains("@import"),
                "nothing fetched");
        assertTrue(html.contains("intra-node-bandwidth"));
        assertEquals(html, Html.of(a), "deterministic");
        assertEquals("a &lt;b&gt; &amp; &quot;c&quot; &#39;d&#39;", Html.esc("a <b> & \"c\" 'd'"));
    }

    /** A ratio near 1 is written with four digits and the difference in words, never as "1x". */
    @Test
    void observedOverPredictedSaysHowFarOff() {
        // 2231.46 observed over 2220 predicted tokens/GPU/s = 1.00516: 0.5% above
        assertEquals("Observed throughput is 1.005x predicted (0.5% above).", Markdown.relative(2231.46 / 2220));
        assertEquals("Observed throughput is 0.5x predicted (50.0% below).", Markdown.relative(0.5));
        assertEquals("Observed throughput is 1x predicted (as predicted).", Markdown.relative(1.0));
    }

    /** "1 node", "2 nodes": the header counts as a person would. */
    @Test
    void theClusterHeaderCountsNodes() {
        List<Advice> all = advice();
        for (int i = 0; i < FILES.size(); i++) {
            String md = Markdown.of(AdviceView.of(all.get(i)));
            String header = md.lines().filter(l -> l.startsWith("**Cluster:**")).findFirst().orElseThrow();
            int nodes = all.get(i).baseline().scenario().cluster().nodes();
            assertTrue(header.startsWith("**Cluster:** " + nodes + (nodes == 1 ? " node x " : " nodes x ")), header);
            assertFalse(header.contains("node(s)"), header);
        }
    }

    /** docs/reports.md lists the glossary the reports end with, term by term. */
    @Test
    void theDocsCarryTheReportsGlossary() throws Exception {
        String page = java.nio.file.Files.readString(Path.of("docs/reports.md"));
        for (String line : Glossary.markdown(Glossary.fleet()).split("\n")) assertTrue(page.contains(line), "docs/reports.md lacks: " + line);
        // and every term is one line, defined
        for (Glossary.Term t : Glossary.TERMS) assertTrue(t.meaning().length() > 20 && !t.meaning().contains("\n"), t.term());
    }

    /**
     * The scatter names the 12 runs furthest outside their interval, and where names would cover each other it puts
     * them one under the other: 20 runs at one spot (a fleet of copies) get 12 names on 12 lines, the rest none.
     */
    @Test
    void theScatterNamesTheFurthestOutliersWithoutStackingTheirNames() {
        List<String> names = new java.util.ArrayList<>(), links = new java.util.ArrayList<>();
        List<double[]> points = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            names.add(String.format("run-%02d", i));
            links.add(null);
            // observed half the prediction, against an interval of 0.9-1.1: all outside, run-00 to run-19 equally far
            points.add(new double[]{1000, 500, 0.9, 1.1});
        }
        names.add("inside");
        links.add(null);
        points.add(new double[]{1000, 1000, 0.9, 1.1});
        String svg = Charts.scatter("s", names, links, points);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("<text class=\"label\" x=\"[0-9.]+\" y=\"([0-9.]+)\"[^>]*>([^<]*)</text>")
                .matcher(svg);
        List<Double> ys = new java.util.ArrayList<>();
        List<String> named = new java.util.ArrayList<>();
        while (m.find()) {
            ys.add(Double.parseDouble(m.group(1)));
            named.add(m.group(2));
        }
        assertEquals(12, named.size(), svg);
        assertEquals("run-00 (x0.5)", named.get(0), "the name and observed over predicted");
        assertFalse(named.stream().anyMatch(n -> n.startsWith("inside")));
        for (int i = 1; i < ys.size(); i++) assertEquals(11, ys.get(i) - ys.get(i - 1), 1e-6, "a line each: " + ys);
        assertEquals(20, (svg.split("fill=\"#b3261e\"", -1).length - 1), "every outlier red");
    }

    /** Every term the one-run report's headings and tables lean on is in its glossary. */
    @Test
    void theGlossaryCoversTheTermsTheReportUses() {
        String md = Markdown.of(advice().get(1));
        for (String term : List.of("house", "busbw", "exposed", "MAMF", "compute-scale", "MFU", "achievable", "set by", "ruled out"))
            assertTrue(Glossary.TERMS.stream().anyMatch(t -> t.term().equals(term)), term);
        assertTrue(md.contains("## Glossary") && md.contains("- **busbw**: "), "the report ends with the glossary");
    }

    /**
     * Greyscale printing keeps neighbouring segments apart: in the order the charts stack them, each fill differs from
     * the next by at least 0.1 in relative luminance (WCAG 2.1), or the next is hatched (communication).
     */
    @Test
    void neighbouringFillsDifferInGreyscale() {
        List<List<String>> orders = List.of(
                List.of(Charts.COMPUTE_FORWARD, Charts.COMPUTE_BACKWARD, Charts.BUBBLE, Charts.OPTIMIZER, Charts.OTHER),
                List.of(Charts.COMPUTE_FORWARD, Charts.COMPUTE_BACKWARD, Charts.OPTIMIZER, Charts.OTHER),
                List.of(Charts.MEMORY));
        for (List<String> order : orders)
            for (int i = 1; i < order.size(); i++)
                assertTrue(Math.abs(Charts.lightness(order.get(i)) - Charts.lightness(order.get(i - 1))) >= 0.1,
                        order.get(i - 1) + " then " + order.get(i));
        // WCAG's worked values: white 1, black 0, mid grey #777777 0.184
        assertEquals(1.0, Charts.lightness("#ffffff"), 1e-9);
        assertEquals(0.184, Charts.lightness("#777777"), 0.001);
    }
}
