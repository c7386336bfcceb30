package dev.trainadvisor.report;

import dev.trainadvisor.advice.Advice;
import dev.trainadvisor.advice.TrainAdvisor;
import dev.trainadvisor.engine.RuleEngine;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A batch's report written run by run ({@link FleetStream}), each run's part worked out on another thread
 * ({@link FleetStream#prepare}, as a batch does on the thread that advised the run) and added in file-name order, is
 * byte for byte the report of the whole fleet written at once: {@link Json#of(List)}, {@link BatchTable#csv()},
 * {@link Markdown#of(Fleet)} and {@link Html#of(Fleet)}, and with run pages, the fleet's page and each run's page as
 * {@link Fleet} gives them. Over the examples and the test run files (a run with no layout search, one with a log,
 * runs of every standing), and the empty fleet.
 */
class FleetStreamTest {

    private static final List<Advice> ADVICE = new ArrayList<>();
    private static final List<String> FILES = new ArrayList<>();

    @BeforeAll
    static void advise() throws IOException {
        TrainAdvisor advisor = new TrainAdvisor(RuleEngine.builtIn()).withoutLayoutSearch();
        SpecReader reader = new SpecReader();
        List<Path> runFiles = new ArrayList<>();
        for (String folder : List.of("examples", "src/test/resources/runs")) {
            try (Stream<Path> s = Files.list(Path.of(folder))) {
                s.filter(f -> f.toString().endsWith(".yaml")).sorted().forEach(runFiles::add);
            }
        }
        for (Path f : runFiles) {
            RunSpec spec = reader.read(SpecReader.parse(f), f.toString());
            ADVICE.add(advisor.adviseRun(spec.cluster(), spec.run()));
            // a file name the CSV quotes and the pages escape, among plain ones
            FILES.add(FILES.size() % 4 == 1 ? "a \"quoted\", <odd> " + f.getFileName() : f.getFileName().toString());
        }
        assertTrue(ADVICE.size() >= 10, ADVICE.size() + " runs");
    }

    /** The stream's report of {@code n} runs, their parts prepared on a pool of two threads. */
    private static String streamed(FleetStream.Format format, int n, FleetStream.Pages pages) throws Exception {
        StringWriter out = new StringWriter();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (FleetStream stream = new FleetStream(format, out, pages)) {
            List<Future<FleetStream.Prepared>> parts = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int k = i;
                parts.add(pool.submit(() -> stream.prepare(ADVICE.get(k), FILES.get(k))));
            }
            for (Future<FleetStream.Prepared> p : parts) stream.add(p.get());
            stream.finish(List.of(), List.of());
        } finally {
            pool.shutdownNow();
        }
        return out.toString();
    }

    private static List<AdviceView> views(int n) { return ADVICE.subList(0, n).stream().map(AdviceView::of).toList(); }

    @Test
    void jsonIsTheWholeArrayWrittenAtOnce() throws Exception {
        for (int n : new int[]{0, 1, 2, ADVICE.size()})
            assertEquals(Json.of(ADVICE.subList(0, n)), streamed(FleetStream.Format.JSON, n, null), n + " runs");
        assertEquals("[ ]\n", streamed(FleetStream.Format.JSON, 0, null));
    }

    @Test
    void csvIsTheWholeTableWrittenAtOnce() throws Exception {
        int n = ADVICE.size();
        assertEquals(BatchTable.of(ADVICE, FILES).csv(), streamed(FleetStream.Format.CSV, n, null));
    }

    @Test
    void markdownAndHtmlOnOnePageAreTheWholeFleetsPage() throws Exception {
        int n = Math.min(ADVICE.size(), Fleet.INLINE_RUNS);
        Fleet fleet = new Fleet(views(n), FILES.subList(0, n), List.of(), List.of(), null, null);
        assertEquals(Markdown.of(fleet), streamed(FleetStream.Format.MD, n, null));
        assertEquals(Html.of(fleet), streamed(FleetStream.Format.HTML, n, null));
    }

    @Test
    void runPagesAreEachRunsPageAndTheFleetsPageLinksThem(@TempDir Path dir) throws Exception {
        int n = ADVICE.size();
        for (String ext : List.of("md", "html")) {
            Path folder = dir.resolve("fleet-" + ext + "-runs");
            String page = "fleet." + ext;
            String written = streamed(ext.equals("md") ? FleetStream.Format.MD : FleetStream.Format.HTML, n,
                    new FleetStream.Pages(folder, page, ext));
            Fleet fleet = new Fleet(views(n), FILES, List.of(), List.of(), null, null)
                    .withRunPages(folder.getFileName().toString(), page);
            assertEquals(ext.equals("md") ? Markdown.of(fleet) : Html.of(fleet), written, ext);
            for (int k = 0; k < n; k++) {
                String runPage = Files.readString(folder.resolve(Fleet.runPageName(k, ext)), StandardCharsets.UTF_8);
                assertEquals(fleet.runPage(AdviceView.of(ADVICE.get(k)), FILES.get(k), ext), runPage, ext + " run " + k);
            }
        }
    }
}
