package dev.trainadvisor.assemble;

import dev.trainadvisor.advice.Advice;
import dev.trainadvisor.advice.TrainAdvisor;
import dev.trainadvisor.history.StepHistory;
import dev.trainadvisor.ingest.LogFormats;
import dev.trainadvisor.ingest.ParsedLog;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.RunSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A folder of per-rank logs (torchrun --log-dir: attempt_0/RANK/stdout.log) read as one log: the first rank's
 * metrics, the largest memory any rank reports, each rank's step time as a per-rank timer. The ranks are the
 * torchtitan-1 sample's six step lines, steps 200-250, as rank 0 printed them; rank 1's timestamps drift 0.5 s later
 * at each line; rank 3 reports 72.00 GiB where the others report 49.66 GiB.
 */
class RankLogsTest {
    @TempDir
    Path dir;

    Path folder() throws Exception {
        Path sample = Path.of("../shared/samples/logs/torchtitan-1.log");
        assumeTrue(Files.exists(sample));
        List<String> steps = Files.readAllLines(sample).stream().filter(l -> l.contains(" step: ")).toList();
        assertEquals(6, steps.size());
        for (int rank = 0; rank < 4; rank++) {
            List<String> lines = new ArrayList<>();
            for (int k = 0; k < steps.size(); k++) {
                String l = steps.get(k).replace("[rank0]", "[rank" + rank + "]");
                if (rank == 1) {
                    // 22:30:50,322 -> 22:30:50,822, then a further 0.5 s each line
                    var m = java.util.regex.Pattern.compile("(\\d\\d):(\\d\\d):(\\d\\d),(\\d{3})").matcher(l);
                    assertTrue(m.find());
                    long ms = ((Long.parseLong(m.group(1)) * 60 + Long.parseLong(m.group(2))) * 60 + Long.parseLong(m.group(3)))
                            * 1000 + Long.parseLong(m.group(4)) + 500L * (k + 1);
                    l = l.substring(0, m.start()) + String.format("%02d:%02d:%02d,%03d", ms / 3_600_000, ms / 60_000 % 60,
                            ms / 1000 % 60, ms % 1000) + l.substring(m.end());
                }
                if (rank == 3) l = l.replace("49.66GiB(52.28%)", "72.00GiB(75.79%)");
                lines.add(l);
            }
            Path f = dir.resolve("attempt_0").resolve(Integer.toString(rank)).resolve("stdout.log");
            Files.createDirectories(f.getParent());
            Files.write(f, lines);
            Files.writeString(f.resolveSibling("stderr.log"), "");   // torchrun writes one per rank; empty here
        }
        return dir;
    }

    @Test
    void aFolderOfRankLogsIsOneLogWithEveryRanksMemoryAndStepTime() throws Exception {
        Path d = folder();
        ParsedLog p = Logs.read(d);
        assertEquals("torchtitan", p.format());
        StepHistory h = p.history();
        assertEquals(6, h.size());
        // rank 3's 72.00 GiB = 77.31 GB is the largest at every step
        for (double m : h.memoryGb()) assertEquals(72.00 * 1.073741824, m, 0.01);
        ParsedLog rank3 = LogFormats.read(d.resolve("attempt_0/3/stdout.log"));
        assertEquals(rank3.metrics().get("peak_memory_gb"), p.metrics().get("peak_memory_gb"));
        // rank 0's tokens per second, not another rank's
        assertEquals(without(LogFormats.read(d.resolve("attempt_0/0/stdout.log")).metrics(), "peak_memory_gb"),
                without(p.metrics(), "peak_memory_gb"), "the first rank's metrics");
        StepHistory.RankTimer t = h.timer(StepHistory.RANK_STEP);
        assertNotNull(t);
        // steps 210 -> 220: 22:31:04,970 -> 22:31:18,934 is 13.964 s over 10 steps; rank 1 0.5 s more
        assertEquals(1.3964, t.minS()[2], 1e-6);
        assertEquals(1.4464, t.maxS()[2], 1e-6);
        assertTrue(p.warnings().stream().anyMatch(w -> w.startsWith("read 4 per-rank torchtitan logs")), p.warnings().toString());
    }

    static java.util.Map<String, Double> without(java.util.Map<String, Double> m, String key) {
        var out = new java.util.TreeMap<>(m);
        out.remove(key);
        return out;
    }

    /** The largest rank's memory reaches the advice: 77.3 of the H100's 80 GB leaves 3.4% free: memory-pressure. */
    @Test
    void theFullestRankDecidesMemoryPressure() throws Exception {
        Path d = folder();
        Path run = dir.resolve("run.yaml");
        Files.writeString(run, """
                cluster: {preset: dgx-h100}
                model: llama-3-8b
                training: {seq_len: 8192, micro_batch_size: 1}
                parallel: {zero_stage: 3}
                log: %s
                """.formatted(d.toAbsolutePath()));
        RunSpec s = RunFiles.read(run);
        Advice a = TrainAdvisor.advise(s);
        assertTrue(a.diagnoses().stream().anyMatch(x -> x.id().equals("memory-pressure")),
                a.diagnoses().stream().map(x -> x.id()).toList().toString());
    }

    @Test
    void aFolderWithoutATrainingLogIsBadInput() throws Exception {
        Files.writeString(dir.resolve("notes.txt"), "nothing here\n");
        SpecException e = assertThrows(SpecException.class, () -> Logs.read(dir));
        assertTrue(e.getMessage().contains("this is a folder, and none of the 1 files in it is a training log"), e.getMessage());
    }
}
