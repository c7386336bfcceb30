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

    @Test
    void batchRanksByThroughputLostAgainstThePrediction() {
        List<Advice> a = advice();
        BatchTable t = BatchTable.of(a, FILES);
        for (int i = 1; i < t.rows().size(); i++)
            assertTrue(t.rows().get(i - 1).lostFraction() >= t.rows().get(i).lostFraction(), t.rows().toString());
        for (BatchTable.Row r : t.rows()) {
            // lost = max(0, 1 - observed / predicted), computed here from the advice itself
            Advice x = a.get(FILES.indexOf(r.file()));
            double expected = Math.max(0, 1 - x.observed().tokensPerGpuPerS() / x.expected().tokensPerGpuPerS());
            assertEquals(expected, r.lostFraction(), 1e-12, r.file());
        }
        BatchTable.Row pcie = t.rows().stream().filter(r -> r.file().equals("internlm-7b-pcie-1node.yaml")).findFirst().orElseThrow();
        assertEquals("intra-node-bandwidth", pcie.topCause());
        assertEquals("nvlink-nodes", pcie.bestRemedy());
        assertEquals(8, pcie.gpus());
    }

    @Test
    void csvHasTheHeaderOneLinePerRunAndQuotesWhatNeedsIt() {
        BatchTable t = BatchTable.of(advice(), FILES);
        String[] lines = t.csv().split("\n");
        assertEquals(1 + FILES.size(), lines.length);
        assertTrue(lines[0].startsWith("run,file,gpus,gpu,model,observed_tokens_per_gpu_per_s"), lines[0]);
        BatchTable.Row odd = new BatchTable.Row("a,b", "x\"y.yaml", 1, "g", "m", 1, 2, 0.5, 0.5, 0.1, "c", "high", 0.2, "", Double.NaN);
        String csv = new BatchTable(List.of(odd)).csv().split("\n")[1];
        assertTrue(csv.startsWith("\"a,b\",\"x\"\"y.yaml\",1,"), csv);
        assertTrue(csv.endsWith(",,"), "no remedy, no speedup: empty fields: " + csv);
    }

    @Test
    void htmlIsOneSelfContainedPageWithChartsAndEscapedText() {
        Advice a = advice().get(1);
        String html = Html.of(a);
        assertTrue(html.startsWith("<!DOCTYPE html>"));
        assertTrue(html.contains("<svg"), "inline SVG charts");
        assertFalse(html.contains("<script"), "no scripts");
        assertFalse(html.contains("src=") || html.contains("href="), "nothing fetched");
        assertTrue(html.contains("intra-node-bandwidth"));
        assertEquals(html, Html.of(a), "deterministic");
        assertEquals("a &lt;b&gt; &amp; &quot;c&quot;", Html.esc("a <b> & \"c\""));
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
}
