package dev.trainadvisor.advice;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.assemble.RunFiles;
import dev.trainadvisor.engine.RuleEngine;
import dev.trainadvisor.perf.LayoutCache;
import dev.trainadvisor.report.Json;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the advice keeps of a run's layout (perf.LayoutCache: the step model's layout pieces, what fits, the layout
 * search) changes nothing it says: each run advised after others, in a shuffled order on two threads, gives the same
 * bytes of JSON as the run advised alone with every cache empty. The runs are the ones where a key that left out a
 * field would show: published runs of one source on the same model at other GPUs, node counts and batches (llm-foundry,
 * torchtitan, the consumer GPUs, megatron), each twice with different measurements (the same layout, another fit), the
 * examples and the test runs (runs that do not fit memory: what fits), and with the layout search a few runs whose
 * layouts repeat.
 */
class LayoutCacheAdviceTest {

    /** One run: where it came from, and its run file as a tree (read again for each advice). */
    record Run(String name, ObjectNode tree) {}

    static List<Run> runs() throws IOException {
        List<Run> out = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> s = Stream.concat(Files.list(Path.of("examples")), Files.walk(Path.of("src/test/resources/runs")))) {
            files = s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
        for (Path f : files) {
            out.add(new Run(f.toString(), (ObjectNode) SpecReader.parse(f)));   // a log is named relative to it
        }
        for (String source : List.of("llm-foundry", "torchtitan", "consumer-gpus", "megatron-narayanan-2021", "bloom")) {
            JsonNode rows = SpecReader.JSON_MAPPER.readTree(Path.of("knowledge-base/reference-runs/" + source + ".json").toFile());
            int k = 0;
            for (JsonNode row : rows.get("runs")) {
                if (!row.path("run").has("metrics") || k++ % 3 != 0) continue;   // a third of each source's rows
                for (double factor : new double[]{1.0, 0.8}) {
                    ObjectNode run = row.get("run").deepCopy();
                    ObjectNode m = (ObjectNode) run.get("metrics");
                    // a slower run of the same layout: every rate down by the factor, every time up
                    for (String rate : List.of("tflops_per_gpu", "tokens_per_gpu_per_s", "mfu"))
                        if (m.has(rate)) m.put(rate, m.get(rate).asDouble() * factor);
                    for (String time : List.of("step_time_s", "fwd_bwd_time_s"))
                        if (m.has(time)) m.put(time, m.get(time).asDouble() / factor);
                    out.add(new Run(source + "/" + row.get("id").asText() + " x" + factor, run));
                }
            }
        }
        return out;
    }

    static String advise(TrainAdvisor advisor, Run r) {
        RunSpec s = RunFiles.read(r.tree().deepCopy(), r.name());
        return Json.of(advisor.adviseRun(s.cluster(), s.run()));
    }

    /** Each run's advice with every cache emptied before it; the caches are left empty. */
    static Map<String, String> eachAlone(TrainAdvisor advisor, List<Run> runs) {
        Map<String, String> alone = new LinkedHashMap<>();
        for (Run r : runs) {
            LayoutCache.clearAll();
            alone.put(r.name(), advise(advisor, r));
        }
        LayoutCache.clearAll();
        return alone;
    }

    @Test
    void aRunAdvisedAmongOthersInAnyOrderSaysWhatItSaysAlone() throws Exception {
        List<Run> runs = runs();
        assertTrue(runs.size() > 150, "runs: " + runs.size());
        TrainAdvisor advisor = new TrainAdvisor(RuleEngine.builtIn()).withoutLayoutSearch();
        Map<String, String> alone = eachAlone(advisor, runs);
        List<Run> shuffled = new ArrayList<>(runs);
        Collections.shuffle(shuffled, new Random(22));
        long hitsBefore = LayoutCache.allHits();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<String>> together = new ArrayList<>();
            for (Run r : shuffled) together.add(pool.submit(() -> advise(advisor, r)));
            for (int i = 0; i < shuffled.size(); i++)
                assertEquals(alone.get(shuffled.get(i).name()), together.get(i).get(), shuffled.get(i).name());
        } finally {
            pool.shutdownNow();
        }
        // the second run of each layout found its layout's pieces worked out
        assertTrue(LayoutCache.allHits() - hitsBefore >= runs.size() / 2 - 20, "hits: " + (LayoutCache.allHits() - hitsBefore));
    }

    @Test
    void theLayoutSearchOfTheAdviceIsTheSameFromTheCache() throws IOException {
        // the examples and a run that does not fit, each twice with other measurements: the second finds its search
        List<Run> runs = new ArrayList<>();
        for (String f : List.of("examples/internlm-7b-pcie-1node.yaml", "examples/internlm-7b-pcie-2nodes.yaml",
                "src/test/resources/runs/llama-2-70b-no-sharding.yaml", "src/test/resources/runs/gpt3-tp16.yaml")) {
            ObjectNode tree = (ObjectNode) SpecReader.parse(Path.of(f));
            runs.add(new Run(f, tree));
            ObjectNode slower = tree.deepCopy();
            slower.putObject("metrics").put("step_time_s", 30.0);
            runs.add(new Run(f + " slower", slower));
        }
        TrainAdvisor advisor = new TrainAdvisor(RuleEngine.builtIn());
        Map<String, String> alone = eachAlone(advisor, runs);
        List<Run> shuffled = new ArrayList<>(runs);
        Collections.shuffle(shuffled, new Random(6));
        for (Run r : shuffled) assertEquals(alone.get(r.name()), advise(advisor, r), r.name());
        assertTrue(TrainAdvisor.SEARCHED.hits() >= 4, "searches found: " + TrainAdvisor.SEARCHED.hits());
    }

    /**
     * The advice starts its layout search ahead, on another thread, while it fits the run: what it waits for is what
     * a search on the caller's thread finds (a layout, its changes, whether the run's own fits), for runs with a better
     * layout and one that does not fit as laid out; and what the search throws reaches the caller as it was.
     */
    @Test
    void theSearchAheadIsTheSearchOnTheCallersThread() {
        int better = 0;
        for (String f : List.of("examples/internlm-7b-pcie-1node.yaml", "examples/internlm-7b-pcie-2nodes.yaml",
                "src/test/resources/runs/llama-2-70b-no-sharding.yaml")) {
            var s = dev.trainadvisor.assemble.RunFiles.read(Path.of(f));
            TrainAdvisor.Searched here = TrainAdvisor.Searched.search(s.cluster(), s.run());
            assertEquals(here, TrainAdvisor.Searched.await(TrainAdvisor.Searched.ahead(s.cluster(), s.run())), f);
            if (here.best() != null) better++;
        }
        assertTrue(better >= 2, "runs with a better layout: " + better);
        IllegalArgumentException thrown = new IllegalArgumentException("no layout");
        assertSame(thrown, assertThrows(IllegalArgumentException.class, () -> TrainAdvisor.Searched.await(
                TrainAdvisor.AHEAD.submit(() -> { throw thrown; }))));
    }

    /** Many searches asked for at once (a library advising from many threads) run a core's worth at a time, all done. */
    @Test
    void theSearchesAheadRunAtMostOneACore() throws Exception {
        int cores = Runtime.getRuntime().availableProcessors();
        java.util.concurrent.atomic.AtomicInteger running = new java.util.concurrent.atomic.AtomicInteger(), most =
                new java.util.concurrent.atomic.AtomicInteger();
        List<Future<?>> tasks = new ArrayList<>();
        for (int i = 0; i < 4 * cores + 3; i++)
            tasks.add(TrainAdvisor.AHEAD.submit(() -> {
                most.accumulateAndGet(running.incrementAndGet(), Math::max);
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                running.decrementAndGet();
            }));
        for (Future<?> t : tasks) t.get();
        assertTrue(most.get() >= 1 && most.get() <= cores, "at once: " + most.get() + " on " + cores + " cores");
    }

    @Test
    void theCacheKeepsAtMostItsCapacityAndTheMostRecentlyUsed() {
        LayoutCache<Integer, String> c = new LayoutCache<>(3);
        List<Integer> computed = new ArrayList<>();
        java.util.function.Function<Integer, String> f = k -> {
            computed.add(k);
            return "v" + k;
        };
        for (int k : new int[]{1, 2, 3, 1, 4, 1, 2}) assertEquals("v" + k, c.get(k, f));
        // 1, 2, 3 computed; 1 found; 4 computed and 2 (least recently used) dropped; 1 found; 2 computed again
        assertEquals(List.of(1, 2, 3, 4, 2), computed);
        assertEquals(3, c.size());
        assertEquals(2, c.hits());
        assertEquals(5, c.misses());
    }
}
