package dev.trainadvisor.advice;

import dev.trainadvisor.history.StepHistory;
import dev.trainadvisor.report.AdviceView;
import dev.trainadvisor.report.BatchTable;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** A run's history through the whole advice: a stall at a period is diagnosed, priced and counted by the fleet. */
class HistoryAdviceTest {

    /**
     * The NVLink example (healthy against the model) with 100 logged steps of 4 s and a 34 s checkpoint save every 20
     * steps: 5 x 30 s = 150 s of 95 x 4 + 5 x 34 = 550 s, 27.3% of the wall time; saving asynchronously wins it back,
     * x 550 / 400 = 1.375.
     */
    @Test
    void aCheckpointStallIsDiagnosedPricedAndCounted() {
        RunSpec s = new SpecReader().read(Path.of("examples", "internlm-7b-nvlink-1node.yaml"));
        double[] time = new double[100];
        Arrays.fill(time, 4);
        for (int step = 20; step <= 100; step += 20) time[step - 1] = 34;
        long[] steps = new long[100];
        for (int i = 0; i < 100; i++) steps[i] = i + 1;
        double[] nan = StepHistory.absent(100);
        StepHistory h = new StepHistory(steps, 1, time, nan, nan, nan, nan, nan, nan, nan, new double[100], List.of(), 0, "");
        Advice a = TrainAdvisor.advise(s.withHistory(h));
        var stall = a.diagnoses().stream().filter(d -> d.id().equals("periodic-stall")).findFirst().orElseThrow();
        assertEquals(150.0 / 550, stall.impactFraction(), 1e-9);
        Recommendation r = a.recommendations().stream().filter(x -> x.id().equals("async-checkpoint")).findFirst().orElseThrow();
        assertEquals(550.0 / 400, r.speedup(), 1e-9);
        assertTrue(r.change().isEmpty());
        assertEquals(Recommendation.PricedBy.HISTORY, r.pricedBy());
        String md = dev.trainadvisor.report.Markdown.of(a);
        assertTrue(md.contains("- **async-checkpoint**: no run-file key changes. "), md);
        assertTrue(dev.trainadvisor.report.Html.of(a).contains("No run-file key changes"));
        AdviceView v = AdviceView.of(a);
        assertTrue(v.verdict().contains("Steps stall at a fixed period (27% of the wall time): save checkpoints asynchronously"),
                v.verdict());
        // the fleet counts what the stall costs: 8 GPUs x (1 - 400 / 550) = 2.18 GPU-hours per hour of running
        BatchTable.Row row = BatchTable.of(List.of(a), List.of("run.yaml")).rows().get(0);
        assertEquals(8 * (1 - 400.0 / 550), row.lostGpuHoursPerHour(), 1e-9);
        // the example's metrics give no step count: a rate, not a total
        assertEquals(BatchTable.Standing.RATE, row.standing());
        assertTrue(Double.isNaN(row.lostGpuHours()));
        assertEquals("periodic-stall", row.topCause());
    }
}
