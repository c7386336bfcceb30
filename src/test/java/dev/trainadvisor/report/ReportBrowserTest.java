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

    static FleetFixtures.Advised published;

    static FleetFixtures.Advised published() {
        if (published == null) published = FleetFixtures.published();
        return published;
    }

    /** Writes a fleet's page and, where it has them, its run and list pages, as batch --out does; returns the page. */
    static Path writeFleet(String name, Fleet fleet) throws IOException {
        Path page = write(name, Html.of(fleet));
        if (fleet.runPages() != null) {
            Path folder = Files.createDirectories(OUT.resolve(fleet.runPages()));
            fleet.pages("html", (file, text) -> {
                try {
                    Files.writeString(folder.resolve(file), text);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        }
        return page;
    }

    /** The share of its time a run loses, from the advice (BatchTable's formula written again): NaN for none. */
    static double lost(AdviceView v) {
        if (v.observed() == null || !v.implausible().isEmpty() || Double.isNaN(v.summary().observedTflops())) return Double.NaN;
        double best = v.recommendations().stream().filter(AdviceView.RecommendationView::sameMath)
                .mapToDouble(AdviceView.RecommendationView::speedup).max().orElse(1);
        return Math.max(0, Math.max(1 - v.summary().observedTflops() / v.summary().predictedTflops(), 1 - 1 / best));
    }

    /**
     * The examples plus every published reference run, one fleet written with --out: the runs that measured
     * throughput plausibly ranked per hour of running (none logs its steps), the implausible ones apart; the scatter,
     * its outliers named; the rates by cause; every row linked to its run's page and back; sorting; no remedy that loses.
     */
    @Test
    void aFleetOfTheExamplesAndTheReferenceRunsRendersSortsAndLinks() throws IOException {
        Chromium c = browser();
        FleetFixtures.Advised published = published();
        // and a run whose measurements cannot be right: 400 printed TFLOPS from the tokens that make 99
        var tree = (com.fasterxml.jackson.databind.node.ObjectNode) SpecReader.parse(Path.of("examples", ReportsTest.FILES.get(1)));
        tree.put("name", "tflops-400");
        ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("metrics")).put("tflops_per_gpu", 400.0);
        RunSpec odd = new SpecReader().read(tree, "tflops-400.yaml");
        List<AdviceView> views = new ArrayList<>(published.views());
        views.add(AdviceView.of(TrainAdvisor.advise(odd.cluster(), odd.run())));
        List<String> files = new ArrayList<>(published.files());
        files.add("tflops-400.yaml");
        FleetFixtures.Advised base = new FleetFixtures.Advised(views, files);
        List<Fleet.Failure> failures = List.of(new Fleet.Failure("broken.yaml", "broken.yaml: field 'cluster.gpu': a GPU of the catalogue"));
        Fleet fleet = new Fleet(base.views(), base.files(), failures, List.of(), null, null).withRunPages("fleet-runs", "fleet.html");
        c.load(writeFleet("fleet.html", fleet));
        assertEquals(List.of(), c.consoleErrors());

        // a point per run that measured its throughput plausibly; the outliers of their class's interval named, 12 at most
        int points = 0, outliers = 0, implausible = 0;
        Set<String> causes = new LinkedHashSet<>();
        for (AdviceView v : base.views()) {
            if (!v.implausible().isEmpty()) implausible++;
            if (v.implausible().isEmpty() && v.observed() != null && v.observed().tokensPerGpuPerS() > 0) {
                points++;
                double ratio = v.observed().tokensPerGpuPerS() / v.prediction().tokensPerGpuPerS();
                if (ratio < v.prediction().interval().lowRatio() || ratio > v.prediction().interval().highRatio()) outliers++;
            }
            AdviceView.DiagnosisView top = BatchTable.topCause(v);
            boolean material = top != null && (top.severity().equals("high") || top.severity().equals("medium"));
            if (lost(v) > 0) causes.add(material ? top.id() : Fleet.NO_MATERIAL_CAUSE);
        }
        assertTrue(implausible > 0 && outliers > 12, implausible + " implausible, " + outliers + " outliers");
        assertEquals(points, marksDrawn(c, "#fleet-scatter").get("scatter"));
        assertEquals(12, c.driver().findElements(By.cssSelector("#fleet-scatter text.label")).size());
        assertEquals(causes.size(), marksDrawn(c, "#fleet-cause-rates").get("cause-rates"));
        assertTrue(c.driver().findElements(By.id("fleet-causes")).isEmpty(), "no run logged its hours: no total to chart");

        // ranked per hour of running (no run logged its step count), most first, the first 100 on the page
        List<WebElement> rows = c.driver().findElements(By.cssSelector("#ranking tbody tr"));
        assertEquals(100, rows.size());
        List<Double> lost = numbers(c, 7);
        List<Double> sorted = new ArrayList<>(lost);
        sorted.sort(Comparator.reverseOrder());
        assertEquals(sorted, lost);
        // no best remedy that loses (x0.987)
        for (WebElement td : c.driver().findElements(By.cssSelector("#ranking tbody tr td:nth-child(9)")))
            if (!td.getText().isEmpty()) assertTrue(Double.parseDouble(td.getText().replaceAll(".* x", "")) > 1, td.getText());
        // the implausible runs are listed apart, none ranked
        String ranked = c.driver().findElement(By.id("ranking")).getText();
        List<WebElement> apart = c.driver().findElements(By.cssSelector("#implausible-runs tbody tr"));
        assertEquals(Math.min(implausible, 100), apart.size());
        for (WebElement r : apart) assertFalse(ranked.contains(r.findElement(By.tagName("a")).getText() + "\n"), r.getText());
        assertTrue(c.driver().findElement(By.cssSelector("ul.failures")).getText().contains("broken.yaml"));

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
        for (int i = 1; i < names.size(); i++) {
            Object order = ((JavascriptExecutor) c.driver()).executeScript("return arguments[0].localeCompare(arguments[1])",
                    names.get(i - 1), names.get(i));
            assertTrue(((Number) order).intValue() >= 0, names.get(i - 1) + " before " + names.get(i));
        }
        c.screenshot("fleet");

        // the rest of the ranking on pages of 500; every row links to its run's page, which links back
        List<WebElement> more = c.driver().findElements(By.cssSelector("p.more[data-list='lost-rates'] a"));
        int rated = fleet.table().rows(BatchTable.Standing.RATE).size();
        assertEquals((rated + 499) / 500, more.size());
        String first = more.get(0).getAttribute("href");
        String run = c.driver().findElements(By.cssSelector("#ranking tbody tr td:nth-child(2) a")).get(0).getAttribute("href");
        c.driver().get(first);
        assertEquals(Math.min(rated, 500), c.driver().findElements(By.cssSelector("#ranking-rates tbody tr")).size());
        assertEquals("1", c.driver().findElement(By.cssSelector("#ranking-rates tbody tr td")).getText());
        c.driver().get(run);
        assertEquals(List.of(), c.consoleErrors());
        String title = c.driver().findElement(By.tagName("h1")).getText();
        assertTrue(title.startsWith("train-advisor: "), title);
        c.driver().findElement(By.linkText("Back to the fleet")).click();
        assertEquals("train-advisor: a fleet of " + base.views().size() + " runs", c.driver().findElement(By.tagName("h1")).getText());
    }

    /**
     * A fleet where half the runs log their steps: the total is GPUs x hours x lost summed over those runs alone (computed
     * here from the advice), the others' rate is said apart; the two rankings hold one kind each.
     */
    @Test
    void totalsAndRatesAreCountedApart() throws IOException {
        Chromium c = browser();
        Fleet fleet = FleetFixtures.of(published(), 60);
        double total = 0, gpuHours = 0, rate = 0;
        int totals = 0, rates = 0;
        for (AdviceView v : fleet.runs()) {
            double l = lost(v);
            if (Double.isNaN(l)) continue;
            int gpus = RunHeader.gpus(v.run());
            double hours = v.observed().steps() > 0 && v.observed().stepTimeS() > 0 ? v.observed().steps() * v.observed().stepTimeS() / 3600
                    : Double.NaN;
            if (Double.isNaN(hours)) {
                rate += gpus * l;
                rates++;
            } else {
                total += gpus * hours * l;
                gpuHours += gpus * hours;
                totals++;
            }
        }
        assertTrue(totals > 5 && rates > 5, totals + " " + rates);
        c.load(writeFleet("fleet-totals.html", fleet));
        assertEquals(List.of(), c.consoleErrors());
        String verdict = c.driver().findElement(By.cssSelector("p.verdict")).getText();
        assertTrue(verdict.contains(totals + " runs logged how long they ran: together they lose " + Fmt.num(total)
                + " GPU-hours of the " + Fmt.num(gpuHours) + " they ran"), verdict);
        assertTrue(verdict.contains(rates + " runs measured throughput but no step count: together they lose " + Fmt.num(rate)
                + " GPU-hours per hour of running"), verdict);
        assertEquals(totals, c.driver().findElements(By.cssSelector("#ranking tbody tr")).size());
        assertEquals(rates, c.driver().findElements(By.cssSelector("#ranking-rates tbody tr")).size());
        for (WebElement td : c.driver().findElements(By.cssSelector("#ranking tbody tr td:nth-child(7)")))
            assertTrue(td.getText().endsWith(" h"), "a total, over its hours: " + td.getText());
        for (WebElement td : c.driver().findElements(By.cssSelector("#ranking-rates tbody tr td:nth-child(7)")))
            assertFalse(td.getText().contains(" over "), "a rate: " + td.getText());
        // the totals by cause add up to the total
        double byCause = 0;
        for (WebElement rect : c.driver().findElements(By.cssSelector("#fleet-causes rect.mark title")))
            byCause += Double.parseDouble(rect.getAttribute("textContent").replaceAll(".*: ([0-9.e+-]+) GPU-hours$", "$1"));
        assertEquals(total, byCause, 0.01 * total);
        // a small fleet on one page (standard output) holds its runs' reports, linked from its rows
        Fleet small = FleetFixtures.of(published(), 3);
        c.load(write("fleet-small.html", Html.of(small)));
        List<WebElement> links = c.driver().findElements(By.cssSelector("#ranking tbody tr td:nth-child(2) a"));
        assertFalse(links.isEmpty());
        for (WebElement link : links) {
            WebElement section = c.driver().findElement(By.id(link.getAttribute("href").replaceAll(".*#", "")));
            assertTrue(section.findElement(By.tagName("h2")).getText().contains(link.getText()));
        }
    }

    /**
     * 10,000 runs: the fleet's page stays small (each run's report a page of its own, the lists 100 rows long, the
     * scatter's points plain dots), and opens without an error; bench/fleetpage.sh times it (528-655 ms, medians of five).
     */
    @Test
    void aFleetOfTenThousandRunsIsAPageOfLessThanAMegabyte() throws IOException {
        Chromium c = browser();
        Fleet fleet = FleetFixtures.of(published(), 10_000).withRunPages("fleet-10000-runs", "fleet-10000.html");
        String html = Html.of(fleet);
        assertTrue(html.length() < 1_000_000, "the page: " + html.length() + " characters");
        BatchTable t = fleet.table();
        int lists = 0;
        for (BatchTable.Standing s : BatchTable.Standing.values())
            if (t.rows(s).size() > 100) lists += (t.rows(s).size() + 499) / 500;
        assertEquals(10_000 + lists, fleet.pageNames("html").size(), "a page a run, and the lists' pages");
        Map<String, String> listPages = FleetReport.listPages(fleet, "html");
        assertEquals(lists, listPages.size());
        for (String p : listPages.values()) assertTrue(p.length() < 1_000_000, "a list's page is small too: " + p.length());
        c.load(write("fleet-10000.html", html));
        assertEquals(List.of(), c.consoleErrors());
        assertEquals(100, c.driver().findElements(By.cssSelector("#ranking tbody tr")).size());
        int plausible = t.rows(BatchTable.Standing.TOTAL).size() + t.rows(BatchTable.Standing.RATE).size();
        assertEquals(plausible, marksDrawn(c, "#fleet-scatter").get("scatter"));
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
        assertTrue(md.contains("## GPU-hours lost per hour by top cause"), "the examples log no steps: a rate by cause");
        assertFalse(md.contains("## GPU-hours lost by top cause"), "and no total");
        assertTrue(md.contains("## Glossary"));
        // written with --out, the rows link to the runs' pages
        String linked = Markdown.of(fleet.withRunPages("fleet-runs", "fleet.md"));
        assertTrue(linked.contains("](fleet-runs/run-00002.md)"), linked);
        assertFalse(linked.contains("<a id=\"run-1\"></a>"));
        Map<String, String> pages = new java.util.HashMap<>();
        fleet.withRunPages("fleet-runs", "fleet.md").pages("md", pages::put);
        assertTrue(pages.get("run-00002.md").startsWith("[Back to the fleet](../fleet.md)"), pages.keySet().toString());
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
