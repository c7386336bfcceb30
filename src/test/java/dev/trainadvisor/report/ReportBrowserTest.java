package dev.trainadvisor.report;

import dev.trainadvisor.advice.Advice;
import dev.trainadvisor.advice.TrainAdvisor;
import dev.trainadvisor.facts.Fmt;
import dev.trainadvisor.report.browser.Chromium;
import dev.trainadvisor.spec.ReferenceRun;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebElement;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The reports in headless Chromium: the three examples' reports and a fleet of the examples plus the published
 * reference runs load without console errors; every chart draws as many marks as the advice has data (counted here
 * from the advice, not from the page); every diagnosis title and the top recommendation appear with their numbers;
 * the fleet's ranking sorts on a click; a hostile run name stays text. Screenshots land in target/screenshots/.
 */
class ReportBrowserTest {
    static final Path OUT = Path.of("target", "reports");
    static Chromium browser;

    static Chromium browser() {
        if (browser == null) browser = Chromium.start();
        return browser;
    }

    @AfterAll
    static void close() {
        if (browser != null) browser.close();
    }

    static Path write(String name, String html) throws IOException {
        Files.createDirectories(OUT);
        Path p = OUT.resolve(name);
        Files.writeString(p, html);
        return p;
    }

    static Advice advise(Path file) {
        RunSpec s = new SpecReader().read(file);
        return TrainAdvisor.advise(s.cluster(), s.run());
    }

    @Test
    void eachExampleReportRendersItsChartsDiagnosesAndTopRecommendation() throws IOException {
        Chromium c = browser();
        for (String f : ReportsTest.FILES) {
            AdviceView a = AdviceView.of(advise(Path.of("examples", f)));
            String stem = f.replace(".yaml", "");
            c.load(write(stem + ".html", Html.of(a)));
            assertEquals(List.of(), c.consoleErrors(), f);
            Map<String, Integer> marks = marksDrawn(c, "body");
            assertEquals(expectedMarks(a), marks, f);
            String text = c.driver().findElement(By.tagName("body")).getText();
            for (AdviceView.DiagnosisView d : a.diagnoses()) {
                assertTrue(text.contains(d.title()), f + ": " + d.title());
                if (d.impactFraction() > 0) assertTrue(text.contains("claiming " + d.share()), f);
            }
            if (!a.recommendations().isEmpty()) {
                AdviceView.RecommendationView top = a.recommendations().get(0);
                assertTrue(text.contains("1. " + top.action()), f);
                assertTrue(text.contains("Predicted x" + Fmt.num(top.speedup()) + " (x" + Fmt.num(top.speedupInterval()[0]) + "-"
                        + Fmt.num(top.speedupInterval()[1]) + ")"), f + ": the top recommendation's gain and range");
            }
            assertEquals(0, scripts(c), "a one-run report runs no script");
            c.screenshot(stem);
        }
    }

    /** The motivating case's numbers, as the InternLM maintainers measured it: PCIe bounds the collectives, NVLink at about x2. */
    @Test
    void theMotivatingCaseReadsAsTheExpertWould() throws IOException {
        Chromium c = browser();
        AdviceView a = AdviceView.of(advise(Path.of("examples", "internlm-7b-pcie-1node.yaml")));
        c.load(write("motivating.html", Html.of(a)));
        String verdict = c.driver().findElement(By.cssSelector("p.verdict")).getText();
        long share = Math.round(100 * a.diagnoses().get(0).impactFraction());
        assertTrue(verdict.startsWith("The intra-node link bounds the collectives (" + share + "% of the step): train on nodes whose"
                + " GPUs are joined by NVLink3"), verdict);
        assertTrue(share > 40, "InternLM's all-reduce and broadcasts on PCIe take about half the step: " + share);
        // the rule, the facts it matched, its arithmetic, what it ruled out and how to confirm it
        WebElement d = c.driver().findElement(By.cssSelector("article.diagnosis"));
        assertTrue(d.findElement(By.cssSelector("p.rule")).getText().contains("Rule intra-node-bandwidth"));
        assertEquals(a.diagnoses().get(0).evidence().size() + 1, d.findElements(By.cssSelector("table.evidence tr")).size());
        assertTrue(d.findElement(By.cssSelector("p.explanation")).getText().contains("calls x alpha + factor x bytes / busbw"));
        assertTrue(d.findElement(By.cssSelector("p.confirm")).getText().contains("nccl-tests"));
        List<WebElement> ruledOut = c.driver().findElements(By.cssSelector("div.ruled-out li"));
        assertEquals(a.ruledOut().size(), ruledOut.size());
        assertTrue(ruledOut.get(0).getText().contains("under the 5% threshold"), ruledOut.get(0).getText());
        // the change in run-file keys
        List<WebElement> keys = c.driver().findElements(By.cssSelector("article.recommendation table.change code"));
        assertEquals("cluster.gpu", keys.get(0).getText());
        c.screenshot("motivating-case");
    }

    @Test
    void aHostileRunNameStaysText() throws IOException {
        Chromium c = browser();
        String hostile = "<script>document.title='owned'</script><img src=x onerror=\"console.error('owned')\">";
        var tree = (com.fasterxml.jackson.databind.node.ObjectNode) SpecReader.parse(Path.of("examples", ReportsTest.FILES.get(1)));
        tree.put("name", hostile);
        RunSpec s = new SpecReader().read(tree, "hostile.yaml");
        Advice advice = TrainAdvisor.advise(s.cluster(), s.run());
        c.load(write("hostile.html", Html.of(advice)));
        assertEquals(List.of(), c.consoleErrors());
        assertEquals(0, scripts(c));
        assertEquals(0, c.driver().findElements(By.tagName("img")).size());
        assertEquals("train-advisor: " + hostile, c.driver().findElement(By.tagName("h1")).getText());
        Fleet fleet = Fleet.of(List.of(advice), List.of("hostile.yaml"), List.of(new Fleet.Failure("<b>bad</b>.yaml", hostile)));
        c.load(write("hostile-fleet.html", Html.of(fleet)));
        assertEquals(List.of(), c.consoleErrors());
        assertEquals(1, scripts(c), "only the sorting script");
        assertEquals(0, c.driver().findElements(By.tagName("img")).size());
        assertTrue(c.driver().findElement(By.cssSelector("ul.failures")).getText().contains(hostile));
        assertTrue(Markdown.of(fleet).contains("&lt;script&gt;"), "Markdown keeps it as text too");
    }

    /** The examples plus every published reference run, one fleet: ranking, scatter, causes, failures, sections, sorting. */
    @Test
    void aFleetOfTheExamplesAndTheReferenceRunsRendersSortsAndLinks() throws IOException {
        Chromium c = browser();
        TrainAdvisor advisor = new TrainAdvisor(dev.trainadvisor.engine.RuleEngine.builtIn()).withoutLayoutSearch();
        List<Advice> advice = new ArrayList<>();
        List<String> files = new ArrayList<>();
        for (String f : ReportsTest.FILES) {
            RunSpec s = new SpecReader().read(Path.of("examples", f));
            advice.add(advisor.adviseRun(s.cluster(), s.run()));
            files.add(f);
        }
        for (ReferenceRun r : ReferenceRun.builtIn()) {
            if (r.isExcluded()) continue;
            advice.add(advisor.adviseRun(r.spec().cluster(), r.spec().run()));
            files.add("reference-runs.json#" + r.id());
        }
        List<Fleet.Failure> failures = List.of(new Fleet.Failure("broken.yaml", "broken.yaml: field 'cluster.gpu': a GPU of the catalogue"));
        Fleet fleet = Fleet.of(advice, files, failures);
        c.load(write("fleet.html", Html.of(fleet)));
        assertEquals(List.of(), c.consoleErrors());

        // the scatter has a point per run that measured its throughput; the causes chart a bar per top cause losing hours
        int measured = 0;
        Set<String> causes = new LinkedHashSet<>();
        for (Advice a : advice) {
            AdviceView v = AdviceView.of(a);
            if (v.observed() != null && v.observed().tokensPerGpuPerS() > 0) measured++;
            AdviceView.DiagnosisView top = BatchTable.topCause(v);
            boolean gains = v.recommendations().stream().anyMatch(rec -> rec.sameMath() && rec.speedup() > 1);
            boolean material = top != null && (top.severity().equals("high") || top.severity().equals("medium"));
            if (v.observed() != null && (v.observed().tflopsPerGpuHouse() < v.summary().predictedTflops() || gains))
                causes.add(material ? top.id() : "other");
        }
        assertEquals(measured, marksDrawn(c, "#fleet-scatter").get("scatter"));
        assertEquals(causes.size(), marksDrawn(c, "#fleet-causes").get("causes"));

        // every run has its section, every ranking row links to it
        List<WebElement> links = c.driver().findElements(By.cssSelector("#ranking tbody tr td:nth-child(2) a"));
        assertEquals(advice.size(), links.size());
        for (WebElement link : links.subList(0, 10)) {
            String target = link.getAttribute("href").replaceAll(".*#", "");
            WebElement section = c.driver().findElement(By.id(target));
            assertTrue(section.findElement(By.tagName("h2")).getText().contains(link.getText()), target);
        }
        assertTrue(c.driver().findElement(By.cssSelector("ul.failures")).getText().contains("broken.yaml"));

        // ranked by GPU-hours lost, most first, as the page comes
        List<Double> lost = numbers(c, 7);
        List<Double> sorted = new ArrayList<>(lost);
        sorted.sort(Comparator.reverseOrder());
        assertEquals(sorted, lost);
        // a click on GPUs sorts by it, most first; a second click, fewest first
        WebElement gpus = c.driver().findElement(By.cssSelector("#ranking th:nth-child(3)"));
        gpus.click();
        List<Double> byGpus = numbers(c, 3);
        List<Double> expected = new ArrayList<>(byGpus);
        expected.sort(Comparator.reverseOrder());
        assertEquals(expected, byGpus);
        assertEquals("descending", gpus.getAttribute("aria-sort"));
        gpus.click();
        expected.sort(Comparator.naturalOrder());
        assertEquals(expected, numbers(c, 3));
        // by run name, as text
        c.driver().findElement(By.cssSelector("#ranking th:nth-child(2)")).click();
        List<String> names = new ArrayList<>();
        for (WebElement td : c.driver().findElements(By.cssSelector("#ranking tbody tr td:nth-child(2)")))
            names.add(td.getAttribute("data-value"));
        // most first, by the browser's own string order
        for (int i = 1; i < names.size(); i++) {
            Object order = ((JavascriptExecutor) c.driver()).executeScript("return arguments[0].localeCompare(arguments[1])",
                    names.get(i - 1), names.get(i));
            assertTrue(((Number) order).intValue() >= 0, names.get(i - 1) + " before " + names.get(i));
        }
        assertNotEquals(names.get(0), names.get(names.size() - 1));
        assertEquals(List.of(), c.consoleErrors());
        c.screenshot("fleet");
    }

    /** The fleet's Markdown: the ranking links to each run's anchor, the failed file is listed with its error. */
    @Test
    void theFleetInMarkdownLinksEachRunAndListsFailures() {
        List<Advice> advice = ReportsTest.advice();
        Fleet fleet = Fleet.of(advice, ReportsTest.FILES, List.of(new Fleet.Failure("x.yaml", "x.yaml: field 'model': a model")));
        String md = Markdown.of(fleet);
        for (int i = 1; i <= 3; i++) assertTrue(md.contains("<a id=\"run-" + i + "\"></a>"), md);
        assertTrue(md.contains("](#run-2)"), "the PCIe run, second in file order, is linked");
        assertTrue(md.contains("- `x.yaml`: x.yaml: field 'model': a model"));
        assertTrue(md.indexOf("internlm-7b-pcie-2nodes") < md.indexOf("internlm-7b-nvlink-1node"), "ranked by GPU-hours lost");
        assertTrue(md.contains("## GPU-hours lost by top cause"));
        assertTrue(md.contains("## Glossary"));
    }

    // ---- helpers

    /** The marks each chart under {@code scope} draws, by chart name, counted in the page. */
    static Map<String, Integer> marksDrawn(Chromium c, String scope) {
        Map<String, Integer> out = new HashMap<>();
        for (WebElement fig : c.driver().findElements(By.cssSelector(scope.equals("body") ? "figure.chart" : scope))) {
            int n = fig.findElements(By.cssSelector("svg .mark")).size();
            out.put(fig.getAttribute("data-chart"), n);
            // and the figure says the same
            assertEquals(Integer.toString(n), fig.getAttribute("data-marks"), fig.getAttribute("id"));
            assertFalse(fig.findElement(By.tagName("figcaption")).getText().isBlank());
            assertFalse(fig.findElement(By.cssSelector("svg desc")).getAttribute("textContent").isBlank());
        }
        return out;
    }

    /**
     * What each chart must draw, counted from the advice: a timeline segment per exposed compute phase and per link
     * of the predicted and fitted steps plus the observed step's parts; a memory segment per part above zero; a
     * roofline mark per operation with time; a bar per recommendation; a point per fitted parameter.
     */
    static Map<String, Integer> expectedMarks(AdviceView a) {
        Map<String, Integer> m = new HashMap<>();
        int timeline = segments(a.prediction().breakdown()) + (a.fit() == null ? 0 : segments(a.fit().breakdown()));
        if (a.observed() != null && a.observed().stepTimeS() > 0)
            timeline += a.observed().fwdBwdTimeS() > 0 && a.observed().fwdBwdTimeS() < a.observed().stepTimeS() ? 2 : 1;
        m.put("timeline", timeline);
        AdviceView.MemoryView mem = a.prediction().memory();
        int parts = 0;
        for (double gb : new double[]{mem.weightsGb(), mem.gradientsGb(), mem.optimizerGb(), mem.activationsGb(), mem.logitsGb(),
                mem.buffersGb()}) if (gb > 0) parts++;
        m.put("memory", parts);
        m.put("roofline", (int) a.prediction().operations().stream().filter(o -> o.forwardSeconds() > 0).count());
        if (!a.recommendations().isEmpty()) m.put("recommendations", a.recommendations().size());
        if (a.fit() != null) m.put("fit", a.fit().parameters().size());
        return m;
    }

    static int segments(List<AdviceView.BreakdownLine> lines) {
        Set<String> links = new LinkedHashSet<>();
        int n = 0;
        for (AdviceView.BreakdownLine l : lines) {
            if (!(l.exposedSeconds() > 0)) continue;
            if (l.link() == null) n++;
            else links.add(l.link());
        }
        return n + links.size();
    }

    static long scripts(Chromium c) {
        return (Long) ((JavascriptExecutor) c.driver()).executeScript("return document.querySelectorAll('script').length");
    }

    static List<Double> numbers(Chromium c, int column) {
        List<Double> out = new ArrayList<>();
        for (WebElement td : c.driver().findElements(By.cssSelector("#ranking tbody tr td:nth-child(" + column + ")"))) {
            String v = td.getAttribute("data-value");
            out.add(v == null || v.isEmpty() ? 0 : Double.parseDouble(v));
        }
        return out;
    }
}
