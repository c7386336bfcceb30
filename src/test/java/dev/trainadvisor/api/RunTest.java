package dev.trainadvisor.api;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Runs built in code and read from files: validated as run files are, refused with the field and what was expected. */
class RunTest {
    @TempDir
    Path tmp;

    static Run.Builder pcie() {
        return Run.builder()
                .name("internlm-7b-pcie-1node")
                .cluster(Run.Cluster.preset("a100-80gb-pcie-8x").nodes(1))
                .model("internlm-7b")
                .layout(new Run.Layout().tp(1).pp(1).dp(8).zeroStage(1).zeroGroupSize(8))
                .training(new Run.Training().seqLen(2048).microBatchSize(2).microBatches(4).recompute("none")
                        .precision("bf16").flashAttention(true).framework("internevo", "2023"))
                .measurements(new Run.Measurements().tflopsPerGpu(99.10, "internevo").tokensPerGpuPerS(2231.46)
                        .fwdBwdTimeS(5.76));
    }

    @Test
    void aBuiltRunIsItsRunFile() {
        Run built = pcie().build();
        Run read = TrainAdvisor.readRunFile(Path.of("examples/internlm-7b-pcie-1node.yaml"));
        assertEquals(read.spec(), built.spec());
        // what the accessors say, from the example's file: 1 node of 8, dp 8, 2 x 4 sequences of 2048
        assertEquals("internlm-7b-pcie-1node", built.name());
        assertEquals("A100-PCIe-80GB", built.gpu());
        assertEquals(List.of(1, 8, 8), List.of(built.nodes(), built.gpusPerNode(), built.gpus()));
        assertEquals(List.of(1, 1, 8, 1), List.of(built.tp(), built.pp(), built.dp(), built.zeroStage()));
        assertEquals(List.of(2048, 2, 4), List.of(built.seqLen(), built.microBatchSize(), built.microBatches()));
        assertEquals("internlm-7b", built.model());
        assertEquals("bf16", built.precision());
        assertEquals("internevo", built.framework());
        assertEquals(List.of(), built.assumptions());
    }

    @Test
    void aClusterAndModelByTheirNumbersAreThoseOfTheCatalogue() {
        // llama-3-8b's shape (model/llama-3-8b.json: 32 layers, 4096 hidden, 32 heads, 8 kv heads, 14336 ffn, 128256
        // vocabulary) on an H100 node joined by NVLink4: the catalogue's model by name predicts the same step
        TrainAdvisor advisor = TrainAdvisor.create().withoutLayoutSearch();
        Run.Training t = new Run.Training().seqLen(8192).microBatchSize(1).microBatches(8);
        Run named = Run.builder().cluster(Run.Cluster.of("H100-SXM5-80GB", 8).intraNodeLink("NVLink4"))
                .model("llama-3-8b").layout(new Run.Layout().zeroStage(1)).training(t).build();
        Run shaped = Run.builder().cluster(Run.Cluster.of("H100-SXM5-80GB", 8).intraNodeLink("NVLink4"))
                .model(Run.Model.of(32, 4096, 32, 14336, 128256).kvHeads(8).name("llama-3-8b"))
                .layout(new Run.Layout().zeroStage(1)).training(t).build();
        assertEquals(8, named.dp(), "dp defaults to the GPUs / (tp x pp x cp)");
        assertEquals(advisor.advise(named).predicted(), advisor.advise(shaped).predicted());
        assertTrue(advisor.advise(named).measured().tokensPerGpuPerS().isEmpty(), "a run without measurements measured nothing");
        assertTrue(advisor.advise(named).fitted().isEmpty(), "nothing to fit");
    }

    @Test
    void invalidValuesAreRefusedNamingTheFieldAndWhatWasExpected() {
        InvalidInputException e = assertThrows(InvalidInputException.class,
                () -> pcie().training(new Run.Training().seqLen(0).microBatchSize(2)).build());
        assertEquals("training.seq_len", e.field());
        assertEquals("Run.builder()", e.source());
        assertTrue(e.expected().startsWith("a positive integer"), e.expected());
        assertTrue(e.getMessage().startsWith("Run.builder(): field 'training.seq_len': a positive integer"), e.getMessage());

        e = assertThrows(InvalidInputException.class, () -> pcie().cluster("a100-pcie-8x").build());
        assertEquals("cluster.preset", e.field());
        assertTrue(e.getMessage().contains("a100-80gb-pcie-8x"), "the nearest known preset: " + e.getMessage());

        // dp 8 on 16 GPUs with tp 1, pp 1: the layout does not cover the GPUs
        e = assertThrows(InvalidInputException.class, () -> pcie().cluster(Run.Cluster.preset("a100-80gb-pcie-8x").nodes(2)
                .interNodeLink("IB-HDR100")).build());
        assertTrue(e.field().startsWith("parallel."), e.getMessage());

        e = assertThrows(InvalidInputException.class, () -> pcie().set("training.seq_lenn", 2048).build());
        assertTrue(e.getMessage().contains("seq_len"), "the nearest known key: " + e.getMessage());

        // missing values are absent, never NaN
        e = assertThrows(InvalidInputException.class, () -> new Run.Measurements().stepTimeS(Double.NaN));
        assertEquals("metrics.step_time_s", e.field());
        assertTrue(e.expected().startsWith("a finite number"), e.expected());
        e = assertThrows(InvalidInputException.class, () -> new Run.Measurements().mfu(Double.POSITIVE_INFINITY));
        assertEquals("metrics.mfu", e.field());
        e = assertThrows(InvalidInputException.class, () -> pcie().measurements(new Run.Measurements().mfu(1.5)).build());
        assertEquals("metrics.mfu", e.field());
        assertTrue(e.expected().contains("between 0 and 1"), e.expected());

        e = assertThrows(InvalidInputException.class, () -> Run.Model.named("internlm-7b").kvHeads(8));
        assertEquals("model.kv_heads", e.field());
        e = assertThrows(InvalidInputException.class, () -> pcie().set("training.seq_len", List.of(1)));
        assertEquals("training.seq_len", e.field());
    }

    @Test
    void aBadRunFileIsRefusedAsTheCommandLineRefusesIt() throws Exception {
        Path f = tmp.resolve("bad.yaml");
        Files.writeString(f, Files.readString(Path.of("examples/internlm-7b-pcie-1node.yaml")).replace("dp: 8", "dp: 3"));
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> TrainAdvisor.readRunFile(f));
        assertEquals(f.toString(), e.source());
        dev.trainadvisor.cli.CliAccess.Result cli = dev.trainadvisor.cli.CliAccess.run("advise", f.toString());
        assertEquals(2, cli.code());
        assertEquals("error: " + e.getMessage(), cli.err().strip());
    }

    /** A log read as advise --log reads it: the same run, the same advice, the same values assumed. */
    @Test
    void aLogIsReadAsAdviseLogReadsIt() {
        Path log = Path.of("../shared/samples/logs/internlm-1.log");
        assumeTrue(Files.exists(log), "the shared sample logs are not here");
        Run run = TrainAdvisor.readLog(log, Run.builder().cluster("dgx-a100-80gb").model("internlm-7b")
                .training(new Run.Training().seqLen(2048)));
        // issue 22's case: ZeRO not printed, assumed 1 from the measured memory, not 0
        Run.Assumption zero = run.assumptions().stream().filter(a -> a.field().equals("parallel.zero_stage")).findFirst()
                .orElseThrow(() -> new AssertionError(run.assumptions().toString()));
        assertEquals("1", zero.value());
        assertEquals("Run.Layout.zeroStage", zero.setBy());
        assertFalse(zero.derived());
        String json = TrainAdvisor.create().advise(run).toJson();
        dev.trainadvisor.cli.CliAccess.Result cli = dev.trainadvisor.cli.CliAccess.run("advise", "--log", log.toString(),
                "--cluster", "dgx-a100-80gb", "--model", "internlm-7b", "--seq-len", "2048");
        assertEquals(0, cli.code(), cli.err());
        assertEquals(cli.out(), json);
        assertTrue(run.notes().stream().noneMatch(n -> n.startsWith("warning: parallel.zero_stage")),
                "assumptions are not notes: " + run.notes());
    }

    /** A bad value the caller gave beside a log is the caller's, named as a run built in code names it, not the log's. */
    @Test
    void aBadValueGivenBesideALogIsTheCallers() {
        Path log = Path.of("examples/logs/tinyllama-h200-trainer.log");
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> TrainAdvisor.readLog(log,
                Run.builder().cluster("hgx-h200").model("llama-2-7b").layout(new Run.Layout().zeroStage(5))
                        .training(new Run.Training().seqLen(2048).microBatchSize(4))));
        assertEquals("Run.builder()", e.source());
        assertEquals("parallel.zero_stage", e.field());
        assertEquals("an integer from 0 to 3, got 5", e.expected());
    }

    @Test
    void aLogWithoutTrainingStepsIsRefused() {
        Path log = Path.of("../shared/samples/logs/nccl-tests-1.log");
        assumeTrue(Files.exists(log), "the shared sample logs are not here");
        InvalidInputException e = assertThrows(InvalidInputException.class,
                () -> TrainAdvisor.readLog(log, Run.builder().cluster("dgx-a100-80gb").model("internlm-7b")));
        assertTrue(e.getMessage().contains("nccl-tests"), e.getMessage());
    }

    @Test
    void setterNamesTheBuilderMethodOfAField() {
        assertEquals(Map.of("parallel.zero_stage", "Run.Layout.zeroStage", "training.micro_batches", "Run.Training.microBatches",
                        "cluster.nodes", "Run.Cluster.nodes", "model", "Run.Builder.model",
                        "training.framework_version", "Run.Training.framework", "metrics.step_time_s", "Run.Measurements.stepTimeS"),
                Map.of("parallel.zero_stage", Run.setter("parallel.zero_stage"),
                        "training.micro_batches", Run.setter("training.micro_batches"),
                        "cluster.nodes", Run.setter("cluster.nodes"), "model", Run.setter("model"),
                        "training.framework_version", Run.setter("training.framework_version"),
                        "metrics.step_time_s", Run.setter("metrics.step_time_s")));
    }

    /** A team's rules, as advise --rules DIR: the same advice as the command line's, with the team's diagnosis in it. */
    @Test
    void withRulesAddsATeamsRules() {
        Path yaml = Path.of("examples/rules/llama-13b-tp4-fp16.yaml");
        Advice shipped = TrainAdvisor.create().advise(TrainAdvisor.readRunFile(yaml));
        Advice team = TrainAdvisor.withRules(Path.of("examples/rules")).advise(TrainAdvisor.readRunFile(yaml));
        dev.trainadvisor.cli.CliAccess.Result cli = dev.trainadvisor.cli.CliAccess.run("advise", "--rules", "examples/rules",
                yaml.toString());
        assertEquals(0, cli.code(), cli.err());
        assertEquals(cli.out(), team.toJson());
        assertTrue(team.diagnoses().stream().anyMatch(d -> d.id().equals("tp-without-sequence-parallel")), team.toJson());
        assertTrue(shipped.diagnoses().stream().noneMatch(d -> d.id().equals("tp-without-sequence-parallel")));
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> TrainAdvisor.withRules(tmp.resolve("none")));
        assertEquals(tmp.resolve("none").toString(), e.source());
    }
}
