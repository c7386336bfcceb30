package dev.trainadvisor.assemble;

import dev.trainadvisor.history.StepHistory;
import dev.trainadvisor.ingest.ParsedLog;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** log: in a run file: the log's steady medians and printed configuration join the run. */
class LogInRunFileTest {
    @TempDir
    Path dir;

    @BeforeEach
    void copySample() throws Exception {
        Path sample = Path.of("../shared/samples/logs/internlm-1.log");
        assumeTrue(Files.exists(sample));
        Files.copy(sample, dir.resolve("train.log"));
    }

    Path write(String yaml) throws Exception {
        Path run = dir.resolve("run.yaml");
        Files.writeString(run, yaml);
        return run;
    }

    RunSpec read(String yaml) throws Exception {
        return RunFiles.read(write(yaml));
    }

    static final String WITHOUT_LOG = """
            cluster: {preset: dgx-a100-80gb}
            model: internlm-7b
            training: {seq_len: 2048, micro_batch_size: 2}
            """;

    @Test
    void theLogsMediansAndMicroNumJoinTheRun() throws Exception {
        RunSpec s = read("""
                cluster: {preset: dgx-a100-80gb}
                model: internlm-7b
                training: {seq_len: 2048, micro_batch_size: 2}
                log: train.log
                """);
        // internlm-1.log, steps 1-5 after dropping warm-up step 0: tgs 4274.45, 4300.69, 4252.55, 4270.52, 4262.67
        // -> median 4270.52; fwd_bwd 3.67, 3.66, 3.70, 3.68, 3.69 -> 3.68; micro_num=4
        assertEquals(4270.52, s.run().measured().tokensPerGpuPerS(), 1e-9);
        assertEquals(3.68, s.run().measured().fwdBwdTimeS(), 1e-9);
        assertEquals("internevo", s.run().measured().tflopsConvention());
        assertEquals(4, s.run().training().microBatches(), "micro_num from the log");
    }

    @Test
    void aRunFileValueTheLogContradictsIsAnError() throws Exception {
        SpecException e = assertThrows(SpecException.class, () -> read("""
                cluster: {preset: dgx-a100-80gb}
                model: internlm-7b
                training: {seq_len: 2048, micro_batch_size: 2, micro_batches: 8}
                log: train.log
                """));
        assertTrue(e.getMessage().contains("training.micro_batches") && e.getMessage().contains("the run file says 8")
                && e.getMessage().contains("says 4"), e.getMessage());
    }

    @Test
    void aMissingLogIsBadInputNamingTheRunFileAndField() {
        SpecException e = assertThrows(SpecException.class, () -> read("""
                cluster: {preset: dgx-a100-80gb}
                model: internlm-7b
                training: {seq_len: 2048, micro_batch_size: 2}
                log: nowhere.log
                """));
        assertTrue(e.getMessage().contains("run.yaml") && e.getMessage().contains("'log'") && e.getMessage().contains("does not exist"),
                e.getMessage());
    }

    @Test
    void theLogsStepHistoryJoinsTheMeasurements() throws Exception {
        Path run = write(WITHOUT_LOG + "log: train.log\n");
        // what ingest gives today, carried through as it is (its history may still be empty)
        assertEquals(Logs.read(dir.resolve("train.log")).history().size(),
                RunFiles.read(run).run().measured().history().size());
        // the history a log reader returns is the one the measurements carry: the log's steps 1 to 5 at their tgs
        StepHistory h = new StepHistory(new long[] {1, 2, 3, 4, 5}, 1, new double[] {3.83, 3.82, 3.86, 3.84, 3.85},
                new double[] {4274.45, 4300.69, 4252.55, 4270.52, 4262.67}, StepHistory.absent(5), StepHistory.absent(5),
                StepHistory.absent(5), StepHistory.absent(5), StepHistory.absent(5), StepHistory.absent(5),
                new double[5], List.of(), 0, "");
        RunSpec s = RunFiles.read(SpecReader.parse(run), run.toString(), p -> {
            ParsedLog real = Logs.read(p);
            return new ParsedLog(real.format(), real.steps(), real.steadySteps(), real.metrics(), real.tflopsConvention(),
                    real.config(), real.extra(), real.warnings(), h);
        });
        assertSame(h, s.run().measured().history());
        assertEquals(4270.52, s.run().measured().tokensPerGpuPerS(), 1e-9, "the medians still come from the log");
        // a run file without a log has none
        assertTrue(read(WITHOUT_LOG).run().measured().history().isEmpty());
    }

    @Test
    void aBlockTheLogFillsMustBeAnObjectWhereTheRunFileGivesIt() throws Exception {
        // the log's micro_num (training.micro_batches) and medians (metrics) would have replaced these silently
        SpecException e = assertThrows(SpecException.class, () -> read("""
                cluster: {preset: dgx-a100-80gb}
                model: internlm-7b
                training: 5
                log: train.log
                """));
        assertEquals(dir.resolve("run.yaml") + ": field 'training': an object (a mapping of keys to values), got the number 5",
                e.getMessage());
        e = assertThrows(SpecException.class, () -> read(WITHOUT_LOG + "metrics: fast\nlog: train.log\n"));
        assertTrue(e.getMessage().endsWith("field 'metrics': an object (a mapping of keys to values), got the string 'fast'"),
                e.getMessage());
    }

    /**
     * The global batch a Megatron log prints (megatron-1.log: 128 sequences per step) is no run-file field: it gives
     * the micro-batches where the run file has the micro-batch size and dp (128 / (1 x 16) = 8), and contradicts a
     * layout that makes another (1 x 4 x 16 = 64).
     */
    @Test
    void theGlobalBatchALogPrintsGivesOrChecksTheMicroBatches() throws Exception {
        Path sample = Path.of("../shared/samples/logs/megatron-1.log");
        assumeTrue(Files.exists(sample));
        Files.copy(sample, dir.resolve("megatron.log"));
        String run = """
                cluster: {preset: dgx-h100, nodes: 2}
                model: mixtral-8x7b
                parallel: {tp: 1, pp: 1, ep: 8, dp: 16}
                training: {seq_len: 2048, micro_batch_size: 1%s}
                log: megatron.log
                """;
        assertEquals(8, read(run.formatted("")).run().training().microBatches());
        SpecException e = assertThrows(SpecException.class, () -> read(run.formatted(", micro_batches: 4")));
        assertTrue(e.getMessage().contains("training.micro_batches") && e.getMessage().contains("(128 sequences)")
                && e.getMessage().contains("1 x 4 x 16 = 64"), e.getMessage());
    }
}
