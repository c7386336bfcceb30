package dev.trainadvisor.api;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * What TrainAdvisor's javadoc promises: one advisor shared by 8 threads that advise different and identical runs at
 * once gives each run, byte for byte, the JSON and Markdown that the same call made alone gives.
 */
class ConcurrentAdviceTest {
    static final int THREADS = 8, REPEATS = 3;

    /** The PCIe run of the README at {@code microBatches} micro-batches: runs that differ in one value. */
    static Run pcie(int microBatches) {
        return Run.builder()
                .name("pcie-mb" + microBatches)
                .cluster("a100-80gb-pcie-8x")
                .model("internlm-7b")
                .layout(new Run.Layout().dp(8).zeroStage(1).zeroGroupSize(8))
                .training(new Run.Training().seqLen(2048).microBatchSize(2).microBatches(microBatches).recompute("none")
                        .precision("bf16").flashAttention(true).framework("internevo", "2023"))
                .measurements(new Run.Measurements().tokensPerGpuPerS(2231.46))
                .build();
    }

    @Test
    void sharedAdvisorGivesEachRunWhatASequentialCallGives() throws Exception {
        TrainAdvisor advisor = TrainAdvisor.create();
        List<Run> runs = new ArrayList<>();
        for (String f : List.of("internlm-7b-pcie-1node", "internlm-7b-nvlink-1node", "internlm-7b-pcie-2nodes"))
            runs.add(TrainAdvisor.readRunFile(Path.of("examples", f + ".yaml")));
        runs.add(pcie(1));
        runs.add(pcie(8));
        runs.add(pcie(8));   // an identical run, built apart

        List<String> json = new ArrayList<>(), md = new ArrayList<>();
        for (Run r : runs) {
            Advice a = advisor.advise(r);
            json.add(a.toJson());
            md.add(a.toMarkdown());
        }
        assertNotEquals(json.get(3), json.get(4), "runs that differ get different advice");
        assertEquals(json.get(4), json.get(5), "identical runs get identical advice");

        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<String[]>> results = new ArrayList<>();
        List<Integer> which = new ArrayList<>();
        try {
            for (int rep = 0; rep < REPEATS; rep++)
                for (int i = 0; i < runs.size(); i++) {
                    Run r = runs.get(i);   // the same Run object in every repeat: shared, not copied
                    which.add(i);
                    results.add(pool.submit(() -> {
                        start.await();
                        Advice a = advisor.advise(r);
                        return new String[]{a.toJson(), a.toMarkdown()};
                    }));
                }
            start.countDown();
            for (int k = 0; k < results.size(); k++) {
                String[] got = results.get(k).get(600, TimeUnit.SECONDS);
                int i = which.get(k);
                assertEquals(json.get(i), got[0], runs.get(i).name() + ": concurrent JSON differs from the sequential");
                assertEquals(md.get(i), got[1], runs.get(i).name() + ": concurrent Markdown differs from the sequential");
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
