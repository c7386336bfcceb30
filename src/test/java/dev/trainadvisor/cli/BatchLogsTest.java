package dev.trainadvisor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trainadvisor.spec.ElementwiseKernels;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** batch over a folder of run files and logs; advise --log. */
class BatchLogsTest {
    static final Path SAMPLES = Path.of("../shared/samples/logs");

    static CliTest.Result run(String... args) { return CliTest.run(args); }

    @Test
    void logsJoinRunFilesOfTheSameStemOrRunsYamlAndAnUndescribedLogIsReported(@TempDir Path dir) throws Exception {
        assumeTrue(Files.exists(SAMPLES.resolve("internlm-1.log")));
        Files.copy(SAMPLES.resolve("internlm-1.log"), dir.resolve("a.log"));
        Files.writeString(dir.resolve("a.yaml"), """
                cluster: {preset: dgx-a100-80gb}
                model: internlm-7b
                training: {seq_len: 2048, micro_batch_size: 2}
                """);
        Files.copy(SAMPLES.resolve("torchtitan-1.log"), dir.resolve("b.log"));
        Files.writeString(dir.resolve("runs.yaml"), """
                defaults: {cluster: {preset: dgx-h100}}
                b.log:
                  model: llama-3-8b
                  parallel: {zero_stage: 3}
                  training: {seq_len: 8192, micro_batch_size: 1, recompute: selective}
                """);
        Files.copy(SAMPLES.resolve("megatron-1.log"), dir.resolve("c.log"));
        CliTest.Result r = run("batch", dir.toString(), "--format", "json");
        assertEquals(Main.BAD_INPUT, r.code(), r.err());
        assertTrue(r.err().contains("c.log") && r.err().contains("runs.yaml"), r.err());
        JsonNode arr = new ObjectMapper().readTree(r.out());
        assertEquals(2, arr.size());
        // a.yaml took a.log: internlm-1's median tgs; b.log took its runs.yaml entry: torchtitan-1's median tps
        assertEquals(4270.52, arr.get(0).path("observed").path("tokens_per_gpu_per_s").asDouble(), 1e-6);
        assertEquals("b", arr.get(1).path("run").path("name").asText());
        assertEquals("H100-SXM5-80GB", arr.get(1).path("run").path("cluster").path("gpu").asText());
        assertFalse(r.err().contains("\r"), "no progress bar when not on a terminal");
    }

    @Test
    void adviseALogWithTheClusterAndModelOnTheCommandLine() throws Exception {
        assumeTrue(Files.exists(SAMPLES.resolve("internlm-1.log")));
        CliTest.Result r = run("advise", "--log", SAMPLES.resolve("internlm-1.log").toString(), "--cluster", "dgx-a100-80gb",
                "--model", "internlm-7b", "--seq-len", "2048", "--micro-batch-size", "2", "--zero-stage", "1");
        assertEquals(Main.OK, r.code(), r.err());
        JsonNode a = new ObjectMapper().readTree(r.out());
        assertEquals(4, a.path("run").path("training").path("micro_batches").asInt(), "micro_num from the log");
        assertEquals(4270.52, a.path("observed").path("tokens_per_gpu_per_s").asDouble(), 1e-6);
        CliTest.Result missing = run("advise", "--log", SAMPLES.resolve("internlm-1.log").toString());
        assertEquals(Main.BAD_INPUT, missing.code());
        assertTrue(missing.err().contains("--cluster"), missing.err());
        assertFalse(missing.err().contains("\tat "), missing.err());
    }

    /** The training of the run an advice prints, read back as a run file. */
    static dev.trainadvisor.spec.Training readBack(JsonNode advice) {
        return new dev.trainadvisor.spec.SpecReader().read(advice.path("run"), "printed run").run().training();
    }

    @Test
    void theKernelsOfALogRunComeFromTheCommandLine() throws Exception {
        assumeTrue(Files.exists(SAMPLES.resolve("torchtitan-1.log")));
        String[] base = {"advise", "--log", SAMPLES.resolve("torchtitan-1.log").toString(), "--cluster", "dgx-h100",
                "--model", "llama-3-8b", "--zero-stage", "3", "--seq-len", "8192", "--micro-batch-size", "1"};
        String[] eager = java.util.Arrays.copyOf(base, base.length + 2);
        eager[base.length] = "--elementwise-kernels";
        eager[base.length + 1] = "eager";
        CliTest.Result r = run(eager);
        assertEquals(Main.OK, r.code(), r.err());
        JsonNode a = new ObjectMapper().readTree(r.out());
        // the run the advice prints reads back as the run advised: eager is torchtitan's own default, so it need not
        // be written; fused is not, so it must be
        assertEquals(ElementwiseKernels.EAGER, readBack(a).elementwiseKernels());
        String[] fusedArgs = java.util.Arrays.copyOf(base, base.length + 2);
        fusedArgs[base.length] = "--elementwise-kernels";
        fusedArgs[base.length + 1] = "fused";
        CliTest.Result fused = run(fusedArgs);
        JsonNode f = new ObjectMapper().readTree(fused.out());
        assertEquals("fused", f.path("run").path("training").path("elementwise_kernels").asText());
        assertEquals(ElementwiseKernels.FUSED, readBack(f).elementwiseKernels());
        // without the option the log's framework decides: torchtitan runs RMSNorm, SwiGLU and RoPE as PyTorch ops unless
        // compiled (knowledge-base/frameworks/torchtitan.json), and the advice says which framework the log named
        JsonNode byLog = new ObjectMapper().readTree(run(base).out());
        assertEquals(ElementwiseKernels.EAGER, readBack(byLog).elementwiseKernels());
        assertEquals("torchtitan", byLog.path("framework").path("key").asText());
        // printed on 2025-06-16, before torchtitan's default version (2026-06) began: read at the one current then
        assertEquals("the log's format (torchtitan), at the version current on 2025-06-16, the log's date (the default, "
                + "2026-06, began 2026-06-09)", byLog.path("framework").path("named_by").asText());
        assertEquals("before-2025-10", byLog.path("framework").path("version").asText());
        assertTrue(a.path("prediction").path("step_time_s").asDouble()
                > new ObjectMapper().readTree(fused.out()).path("prediction").path("step_time_s").asDouble(), "eager is slower");

        String[] bad = java.util.Arrays.copyOf(base, base.length + 2);
        bad[base.length] = "--attention-kernel";
        bad[base.length + 1] = "xformers";
        CliTest.Result wrong = run(bad);
        assertEquals(Main.BAD_INPUT, wrong.code());
        // the option's value, named by the option (Described.attribute), not by the log, which printed no kernel
        assertTrue(wrong.err().startsWith("error: --attention-kernel: one of [") && wrong.err().contains("got 'xformers'"),
                wrong.err());
        assertFalse(wrong.err().contains("\tat "), wrong.err());
    }

    /**
     * A torchtitan log whose start-up says its blocks were compiled (TorchtitanLog) is advised as compiled, not at
     * torchtitan's eager default; an option still wins over the log, with a note.
     */
    @Test
    void aTorchtitanLogThatCompiledIsAdvisedCompiled(@TempDir Path dir) throws Exception {
        assumeTrue(Files.exists(SAMPLES.resolve("torchtitan-1.log")));
        Path log = dir.resolve("titan.log");
        Files.writeString(log, "[rank0]:[titan] 2025-06-16 22:00:00,000 - root - INFO - Compiling each TransformerBlock with "
                + "torch.compile\n" + Files.readString(SAMPLES.resolve("torchtitan-1.log")));
        String[] base = {"advise", "--log", log.toString(), "--cluster", "dgx-h100", "--model", "llama-3-8b", "--zero-stage",
                "3", "--seq-len", "8192", "--micro-batch-size", "1"};
        CliTest.Result r = run(base);
        assertEquals(Main.OK, r.code(), r.err());
        JsonNode compiled = new ObjectMapper().readTree(r.out());
        assertEquals(ElementwiseKernels.COMPILED, readBack(compiled).elementwiseKernels());
        // what the user reads: the same log without the line is told first to compile its element-wise kernels; the
        // compiled one is not told it at all
        String[] plain = base.clone();
        plain[2] = SAMPLES.resolve("torchtitan-1.log").toString();
        JsonNode eagerAdvice = new ObjectMapper().readTree(run(plain).out());
        assertEquals("eager-elementwise", eagerAdvice.path("diagnoses").path(0).path("id").asText());
        assertTrue(eagerAdvice.path("verdict").asText().contains("torch.compile the model"), eagerAdvice.path("verdict").asText());
        for (JsonNode d : compiled.path("diagnoses")) assertNotEquals("eager-elementwise", d.path("id").asText());
        assertFalse(compiled.path("verdict").asText().contains("torch.compile"), compiled.path("verdict").asText());
        String[] eager = java.util.Arrays.copyOf(base, base.length + 2);
        eager[base.length] = "--elementwise-kernels";
        eager[base.length + 1] = "eager";
        CliTest.Result e = run(eager);
        assertEquals(Main.OK, e.code(), e.err());
        assertEquals(ElementwiseKernels.EAGER, readBack(new ObjectMapper().readTree(e.out())).elementwiseKernels());
        assertTrue(e.err().contains("replaces the torchtitan log's training.elementwise_kernels compiled"), e.err());
        // and one that trained in Float8 is advised in fp8, with torchao's scaling from each tensor
        Path fp8 = dir.resolve("titan-fp8.log");
        Files.writeString(fp8, "[rank0]:[titan] 2025-06-16 22:00:00,000 - root - INFO - Float8 training active with recipe "
                + "tensorwise\n" + Files.readString(log));
        String[] fp8Args = base.clone();
        fp8Args[2] = fp8.toString();
        CliTest.Result f = run(fp8Args);
        assertEquals(Main.OK, f.code(), f.err());
        dev.trainadvisor.spec.Training t = readBack(new ObjectMapper().readTree(f.out()));
        assertEquals(dev.trainadvisor.spec.Precision.FP8, t.precision());
        assertEquals(dev.trainadvisor.spec.Fp8Recipe.CURRENT, t.fp8Recipe());
        assertEquals(ElementwiseKernels.COMPILED, t.elementwiseKernels());
    }

    // ------------------------------------------------------------------ advise --log: what the log does not print

    /**
     * A log that prints neither the model's shape nor the sequence length: one message names both options (a newcomer's
     * first try learns all it must add), and with the model given, the one still missing.
     */
    @Test
    void aLogWithoutModelOrSequenceLengthAsksForBothAtOnce() throws Exception {
        String log = "examples/logs/tinyllama-h200-trainer.log";
        CliTest.Result both = run("advise", "--log", log, "--cluster", "examples/logs/cluster-1xh200.yaml");
        assertEquals(Main.BAD_INPUT, both.code(), both.err());
        assertTrue(both.err().startsWith("error: " + log + ": field 'model': "), both.err());
        assertTrue(both.err().contains("set --model and --seq-len"), both.err());
        assertFalse(both.err().contains("--model alone"), "the Trainer prints no TFLOPS: " + both.err());
        CliTest.assertNoStackTrace(both.err());
        if (Files.exists(SAMPLES.resolve("torchtitan-1.log"))) {
            // a log that prints TFLOPS says that the model alone may do
            CliTest.Result titan = run("advise", "--log", SAMPLES.resolve("torchtitan-1.log").toString(), "--cluster", "dgx-h100");
            assertEquals(Main.BAD_INPUT, titan.code(), titan.err());
            assertTrue(titan.err().contains("set --model and --seq-len (or --model alone: the TFLOPS the log prints may "
                    + "give the sequence length)"), titan.err());
            // torchtitan-2.log is a tiny model's: 0.52 TFLOPS at 7282 tokens/s are 71 MFLOPs a token, below any length of
            // Llama 3 8B, and the message asks whether the model is the run's
            CliTest.Result tiny = run("advise", "--log", SAMPLES.resolve("torchtitan-2.log").toString(), "--cluster",
                    "dgx-h100", "--model", "llama-3-8b");
            assertEquals(Main.BAD_INPUT, tiny.code(), tiny.err());
            assertTrue(tiny.err().contains("field 'training.seq_len': the sequence length: the torchtitan log does not "
                    + "print it, and the TFLOPS it prints are those of no customary length (a power of two, or three times "
                    + "one) in its count of this model (is the model the run's?); set --seq-len"), tiny.err());
        }
        CliTest.Result one = run("advise", "--log", log, "--cluster", "examples/logs/cluster-1xh200.yaml", "--model",
                "examples/logs/model-tinyllama-1.1b.yaml");
        assertEquals(Main.BAD_INPUT, one.code(), one.err());
        assertTrue(one.err().contains("field 'training.seq_len'") && one.err().contains("set --seq-len")
                && !one.err().contains("--model"), one.err());
    }

    /**
     * A framework the log's format names runs at its profile's default version (a version is given only with the
     * framework), and the warning and the report's header say so with what sets another: the README's Trainer log is
     * hf-trainer at knowledge-base/frameworks/hf-trainer.json's default_version (deepspeed, which a plain Trainer log
     * does not say). Named with its version, neither the warning nor the clause appears.
     */
    @Test
    void aFrameworkNamedByTheLogSaysItsVersionIsTheProfilesDefault() throws Exception {
        String dflt = new ObjectMapper().readTree(Path.of("knowledge-base/frameworks/hf-trainer.json").toFile())
                .path("default_version").asText();
        assertFalse(dflt.isEmpty(), "hf-trainer has versions");
        String[] readme = {"advise", "--log", "examples/logs/tinyllama-h200-trainer.log", "--cluster",
                "examples/logs/cluster-1xh200.yaml", "--model", "examples/logs/model-tinyllama-1.1b.yaml", "--seq-len", "2048",
                "--micro-batch-size", "4", "--format", "md"};
        CliTest.Result r = run(readme);
        assertEquals(Main.OK, r.code(), r.err());
        assertTrue(r.err().contains("warning: framework hf-trainer " + dflt + " taken from the log's format (hf-trainer), at its "
                + "profile's default version (set training.framework, or --framework with --log, to choose another; "
                + "training.framework_version or --framework-version, its version)\n"), r.err());
        assertTrue(r.out().contains("**Framework:** hf-trainer " + dflt + " (named by the log's format (hf-trainer), at the "
                + "profile's default version; set training.framework and training.framework_version for another)  \n"), r.out());
        String other = dflt.equals("fsdp") ? "deepspeed" : "fsdp";
        String[] given = java.util.Arrays.copyOf(readme, readme.length + 4);
        System.arraycopy(new String[]{"--framework", "hf-trainer", "--framework-version", other}, 0, given, readme.length, 4);
        CliTest.Result g = run(given);
        assertEquals(Main.OK, g.code(), g.err());
        assertFalse(g.err().contains("warning: framework"), g.err());
        assertTrue(g.out().contains("**Framework:** hf-trainer " + other + "  \n"), g.out());
    }

    /** Sample logs of runs that ran, with what their sources say of the cluster, the model and the micro-batch size. */
    static final String[][] RAN = {
            {"internlm-1.log", "--cluster", "dgx-a100-80gb", "--model", "internlm-7b", "--seq-len", "2048", "--micro-batch-size", "2"},
            {"megatron-1.log", "--cluster", "dgx-h100", "--nodes", "2", "--model", "mixtral-8x7b", "--ep", "8", "--seq-len", "2048",
                    "--micro-batch-size", "1"},
            {"torchtitan-1.log", "--cluster", "dgx-h100", "--model", "llama-3-8b", "--seq-len", "8192", "--micro-batch-size", "1"},
            {"deepspeed-1.log", "--cluster", "dgx-a100-80gb", "--model", "llama-2-7b", "--micro-batch-size", "1"},
            {"megatron-deepspeed-1.log", "--cluster", "dgx-a100-80gb", "--model", "gpt3-1.3b", "--micro-batch-size", "1"}};

    static String[] advise(String[] ran, String... more) {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("advise", "--log", SAMPLES.resolve(ran[0]).toString()));
        args.addAll(java.util.Arrays.asList(ran).subList(1, ran.length));
        args.addAll(java.util.List.of(more));
        return args.toArray(String[]::new);
    }

    static java.util.List<String> highIds(JsonNode advice) {
        java.util.List<String> ids = new java.util.ArrayList<>();
        for (JsonNode d : advice.path("diagnoses")) if (d.path("severity").asText().equals("high")) ids.add(d.path("id").asText());
        return ids;
    }

    /**
     * A run that ran fitted its GPUs: with ZeRO not printed, the advice assumes a stage at which it fits and says so,
     * rather than ZeRO 0 and a high memory overflow (4 of these 5 overflowed that way). Given ZeRO 0, it overflows.
     */
    @Test
    void sampleLogsOfRunsThatRanAreNotDiagnosedAsNotFitting() throws Exception {
        assumeTrue(Files.exists(SAMPLES.resolve("megatron-1.log")));
        for (String[] ran : RAN) {
            CliTest.Result r = run(advise(ran));
            assertEquals(Main.OK, r.code(), ran[0] + ": " + r.err());
            JsonNode a = new ObjectMapper().readTree(r.out());
            assertFalse(highIds(a).contains("memory-overflow"), ran[0] + ": " + highIds(a) + "\n" + r.err());
            assertTrue(a.path("prediction").path("memory").path("total_gb").asDouble()
                    <= a.path("prediction").path("memory").path("capacity_gb").asDouble(), ran[0]);
            assertTrue(r.err().contains("warning: parallel.zero_stage not printed by the log; assumed "
                    + a.path("run").path("parallel").path("zero_stage").asInt()), ran[0] + ": " + r.err());
            assertTrue(r.err().contains("(set --zero-stage)"), r.err());
            CliTest.assertNoStackTrace(r.err());
        }
        CliTest.Result zero = run(advise(RAN[2], "--zero-stage", "0"));
        assertEquals(Main.OK, zero.code(), zero.err());
        assertTrue(highIds(new ObjectMapper().readTree(zero.out())).contains("memory-overflow"),
                "llama-3-8b with unsharded Adam states does not fit 80 GB: the guess is what changed");
        assertFalse(zero.err().contains("parallel.zero_stage"), "a value given is not assumed: " + zero.err());
    }

    /**
     * A log that prints TFLOPS in a known count and the pace they were counted from gives its sequence length
     * (assemble.SeqFromFlops): megatron-1.log's 2048 (its step and global batch) and torchtitan-1.log's 8192 (its tps),
     * the values the runs used (perf.FlopsTest reproduces every printed line with them). Derived, each is listed with
     * --seq-len, and the advice is the one given them.
     */
    @Test
    void theSequenceLengthComesFromThePrintedTflops() throws Exception {
        for (int i : new int[]{1, 2}) {
            assumeTrue(Files.exists(SAMPLES.resolve(RAN[i][0])));
            java.util.List<String> without = new java.util.ArrayList<>(java.util.List.of(RAN[i]));
            int at = without.indexOf("--seq-len");
            String seq = without.get(at + 1);
            without.subList(at, at + 2).clear();
            CliTest.Result derived = run(advise(without.toArray(String[]::new)));
            assertEquals(Main.OK, derived.code(), derived.err());
            JsonNode a = new ObjectMapper().readTree(derived.out()), given = new ObjectMapper().readTree(run(advise(RAN[i])).out());
            assertEquals(Integer.parseInt(seq), a.path("run").path("training").path("seq_len").asInt());
            JsonNode assumed = a.path("assumed").get(0);
            assertEquals("training.seq_len", assumed.path("field").asText());
            assertEquals("--seq-len", assumed.path("option").asText());
            assertTrue(assumed.path("why").asText().startsWith("derived: the sequence length at which the "), assumed.toString());
            assertTrue(derived.err().contains("note: training.seq_len " + seq + " = the sequence length at which"), derived.err());
            for (String k : new String[]{"run", "diagnoses", "recommendations", "fit", "observed"})
                assertEquals(given.path(k), a.path(k), RAN[i][0] + ": " + k);
        }
    }

    /**
     * A folder of logs as they were kept, nothing describing them: an error a log, and one line saying what to write;
     * with a runs.yaml that describes some, what to add.
     */
    @Test
    void aFolderOfUndescribedLogsSaysWhatToWriteOnce(@TempDir Path dir) throws Exception {
        Path logs = dir.resolve("kept");
        Files.createDirectories(logs);
        for (String n : new String[]{"a.log", "b.log", "c.log"})
            Files.copy(Path.of("examples/logs/tinyllama-h200-trainer.log"), logs.resolve(n));
        CliTest.Result r = run("batch", logs.toString(), "--format", "csv");
        assertEquals(Main.BAD_INPUT, r.code(), r.err());
        assertEquals(3, r.err().lines().filter(l -> l.startsWith("error: ")).count(), r.err());
        java.util.List<String> hints = r.err().lines().filter(l -> l.startsWith("hint: ")).toList();
        assertEquals(java.util.List.of("hint: 3 training log(s) that no run file describes: write "
                + logs.toAbsolutePath().resolve("runs.yaml") + ", each log's file name with the cluster, model and layout "
                + "that produced it, on top of defaults (examples/runs/runs.yaml shows one; docs/logs.md); advise --log LOG "
                + "tries one alone"), hints);
        // examples/runs/runs.yaml's defaults, which describe the same Trainer run
        String defaults = Files.readString(Path.of("examples/runs/runs.yaml"));
        defaults = defaults.substring(defaults.indexOf("defaults:"), defaults.indexOf("# bf16, SDPA"));
        Files.writeString(logs.resolve("runs.yaml"), defaults + "a.log: {}\n");
        CliTest.Result some = run("batch", logs.toString(), "--format", "csv");
        assertEquals(Main.BAD_INPUT, some.code(), some.err());
        assertTrue(some.err().contains("hint: 2 training log(s) that no run file describes: add an entry for each to "
                + logs.toAbsolutePath().resolve("runs.yaml")), some.err());
        assertEquals(2, some.out().lines().count(), "the header and a.log's row: " + some.out());
    }

    /** Megatron prints the global batch, not the micro-batches: 128 sequences / (micro-batch 1 x dp 16) = 8 a step. */
    @Test
    void theMicroBatchesComeFromTheGlobalBatchTheLogPrints() throws Exception {
        assumeTrue(Files.exists(SAMPLES.resolve("megatron-1.log")));
        CliTest.Result r = run(advise(RAN[1]));
        assertEquals(Main.OK, r.code(), r.err());
        JsonNode a = new ObjectMapper().readTree(r.out());
        assertEquals(8, a.path("run").path("training").path("micro_batches").asInt());
        assertEquals(16, a.path("run").path("parallel").path("dp").asInt());
        // the step time the log measured now covers 8 micro-batches of 2048 tokens on each of 16 ranks
        assertEquals(128 * 2048 / 16 / 5.48935, a.path("observed").path("tokens_per_gpu_per_s").asDouble(), 0.5);
        assertFalse(highIds(a).contains("implausible-measurement"), highIds(a).toString());
        assertTrue(r.err().contains("note: training.micro_batches 8 = the log's global batch of 128 sequences"), r.err());
        for (String[] w : new String[][]{{"parallel.tp", "--tp"}, {"parallel.pp", "--pp"}, {"training.precision", "--precision"},
                {"training.recompute", "--recompute"}})
            assertTrue(r.err().contains("warning: " + w[0] + " not printed by the log; assumed ") && r.err().contains("(set " + w[1] + ")"),
                    w[0] + ": " + r.err());
        assertFalse(r.err().contains("training.micro_batches not printed"), r.err());

        String[] three = advise(RAN[1]);
        three[three.length - 1] = "3";   // --micro-batch-size 3
        CliTest.Result odd = run(three);
        assertEquals(Main.BAD_INPUT, odd.code(), odd.err());
        assertTrue(odd.err().contains("megatron-1.log") && odd.err().contains("training.micro_batches")
                && odd.err().contains("global batch of 128 sequences is not a multiple of micro_batch_size x dp = 3 x 16"), odd.err());
        CliTest.assertNoStackTrace(odd.err());
    }

    /**
     * What advise --log assumed is in the advice a team shares, not only on stderr: JSON assumed, and the md and html
     * reports' headers, each value with why and the option that sets it; the batch's report names the run-file field.
     * internlm-1.log prints micro_num=4 and 131072 tokens a step: the micro-batch size is 131072 / 2048 / (4 x dp 8) = 2.
     */
    @Test
    void theValuesAssumedAreInTheAdviceAndTheReportsHeaders(@TempDir Path dir) throws Exception {
        assumeTrue(Files.exists(SAMPLES.resolve("internlm-1.log")));
        String[] args = {"advise", "--log", SAMPLES.resolve("internlm-1.log").toString(), "--cluster", "dgx-a100-80gb", "--model",
                "internlm-7b", "--seq-len", "2048"};
        CliTest.Result json = run(args);
        assertEquals(Main.OK, json.code(), json.err());
        JsonNode assumed = new ObjectMapper().readTree(json.out()).path("assumed");
        java.util.Map<String, JsonNode> byField = new java.util.LinkedHashMap<>();
        for (JsonNode a : assumed) byField.put(a.path("field").asText(), a);
        assertEquals(java.util.List.of("parallel.tp", "parallel.pp", "training.recompute", "training.precision",
                "training.micro_batch_size", "parallel.zero_stage"), java.util.List.copyOf(byField.keySet()));
        assertEquals(2, byField.get("training.micro_batch_size").path("value").asInt());
        assertTrue(byField.get("training.micro_batch_size").path("why").asText().startsWith("derived: the log's 131072 tokens a step"));
        assertEquals("--zero-stage", byField.get("parallel.zero_stage").path("option").asText());
        assertEquals(1, byField.get("parallel.zero_stage").path("value").asInt());
        assertTrue(byField.get("parallel.zero_stage").path("why").asText().startsWith("not given, nor printed by the log"));
        for (JsonNode a : assumed) assertTrue(json.err().contains(a.path("field").asText()), "on stderr too: " + a);

        String[] md = java.util.Arrays.copyOf(args, args.length + 2);
        md[args.length] = "--format";
        md[args.length + 1] = "md";
        String report = run(md).out();
        String header = report.substring(0, report.indexOf("\n\n", report.indexOf("**Framework:**")));
        assertTrue(header.contains("**Assumed** (neither given nor printed by the log):"), header);
        assertTrue(header.contains("- parallel.zero_stage 1 (not given, nor printed by the log; the lowest stage at which the run "
                + "fits the GPUs' memory; set --zero-stage)"), header);
        assertTrue(header.contains("- parallel.tp 1 (not given, nor printed by the log; set --tp)"), header);
        md[args.length + 1] = "html";
        String html = run(md).out();
        assertTrue(html.contains("<dt>Assumed</dt>") && html.contains("<li>parallel.tp 1 (not given, nor printed by the log; set --tp)</li>"),
                html.substring(0, Math.min(3000, html.length())));

        // the same log in a batch: the fleet's report says it of that run, with the field a runs.yaml sets
        Files.copy(SAMPLES.resolve("internlm-1.log"), dir.resolve("internlm-1.log"));
        Files.writeString(dir.resolve("runs.yaml"), "internlm-1.log: {cluster: dgx-a100-80gb, model: internlm-7b, training: {seq_len: 2048}}\n");
        CliTest.Result fleet = run("batch", dir.toString(), "--format", "md");
        assertEquals(Main.OK, fleet.code(), fleet.err());
        assertTrue(fleet.out().contains("- parallel.tp 1 (not given, nor printed by the log; set parallel.tp)"), fleet.out());
        // a run file without a log assumed nothing: no such line
        assertFalse(run("advise", CliTest.PCIE, "--format", "md").out().contains("**Assumed**"));
    }

    /** The command line over the log over the default: --micro-batches replaces micro_num, with a note. */
    @Test
    void theCommandLineWinsOverTheLogAndTheLogOverTheDefault() throws Exception {
        assumeTrue(Files.exists(SAMPLES.resolve("internlm-1.log")));
        String log = SAMPLES.resolve("internlm-1.log").toString();
        // micro_num=4 printed, 131072 tokens a step = 64 sequences of 2048 on dp 8: the micro-batch size is 2
        CliTest.Result printed = run("advise", "--log", log, "--cluster", "dgx-a100-80gb", "--model", "internlm-7b", "--seq-len", "2048");
        assertEquals(Main.OK, printed.code(), printed.err());
        JsonNode t = new ObjectMapper().readTree(printed.out()).path("run").path("training");
        assertEquals(4, t.path("micro_batches").asInt());
        assertEquals(2, t.path("micro_batch_size").asInt());
        assertFalse(printed.err().contains("warning: training.micro_batch"), "neither is assumed: " + printed.err());
        assertTrue(printed.err().contains("note: training.micro_batch_size 2 = the log's 131072 tokens a step"), printed.err());

        CliTest.Result given = run("advise", "--log", log, "--cluster", "dgx-a100-80gb", "--model", "internlm-7b", "--seq-len", "2048",
                "--micro-batches", "2", "--zero-stage", "1");
        assertEquals(Main.OK, given.code(), given.err());
        JsonNode g = new ObjectMapper().readTree(given.out()).path("run");
        assertEquals(2, g.path("training").path("micro_batches").asInt());
        assertEquals(4, g.path("training").path("micro_batch_size").asInt(), "64 sequences / (2 micro-batches x dp 8)");
        assertEquals(1, g.path("parallel").path("zero_stage").asInt());
        assertTrue(given.err().contains("note: --micro-batches 2 replaces the internevo log's training.micro_batches 4"), given.err());
    }

    /** On a GPU without bf16 the precision assumed is fp16, and the warning says why. */
    @Test
    void thePrecisionAssumedIsOneTheGpuHas() throws Exception {
        assumeTrue(Files.exists(SAMPLES.resolve("internlm-1.log")));
        CliTest.Result r = run("advise", "--log", SAMPLES.resolve("internlm-1.log").toString(), "--cluster", "v100-dgx1",
                "--model", "internlm-7b", "--seq-len", "2048");
        assertEquals(Main.OK, r.code(), r.err());
        assertEquals("fp16", new ObjectMapper().readTree(r.out()).path("run").path("training").path("precision").asText());
        assertTrue(r.err().contains("warning: training.precision not printed by the log; assumed fp16, as V100-SXM2-32GB has no "
                + "bf16 tensor cores (set --precision)"), r.err());
    }

    /** nccl-tests output, a topology matrix and a log without throughput are not training logs to advise. */
    @Test
    void aLogWithoutTrainingThroughputIsRefused(@TempDir Path dir) throws Exception {
        assumeTrue(Files.exists(SAMPLES.resolve("nccl-tests-1.log")));
        Files.writeString(dir.resolve("NOTES.txt"), "We ran the 7B on two nodes this week.\nIt was slow.\n");
        String[][] cases = {{SAMPLES.resolve("nccl-tests-1.log").toString(), "nccl-tests output"},
                {SAMPLES.resolve("nvidia-smi-topo-1.log").toString(), "nvidia-smi topo -m"},
                {SAMPLES.resolve("hf-trainer-1.log").toString(), "field 'metrics': a training log that measures throughput"},
                {dir.resolve("NOTES.txt").toString(), "a log of a known format"}};
        for (String[] c : cases) {
            CliTest.Result r = run("advise", "--log", c[0], "--cluster", "dgx-h100", "--model", "llama-3-8b", "--seq-len", "8192",
                    "--micro-batch-size", "1");
            assertEquals(Main.BAD_INPUT, r.code(), c[0] + ": " + r.err());
            assertTrue(r.err().contains(c[0]) && r.err().contains(c[1]), r.err());
            assertEquals("", r.out());
            CliTest.assertNoStackTrace(r.err());
        }
    }

    // ------------------------------------------------------------------ batch over a folder as a team keeps it

    static final String RUN = """
            cluster: {preset: dgx-a100-80gb}
            model: internlm-7b
            parallel: {zero_stage: 1}
            training: {seq_len: 2048, micro_batch_size: 2}
            """;

    /** Notes, another tool's config, nccl-tests output, an empty and a binary file are skipped and listed; nothing fails. */
    @Test
    void filesThatAreNoRunNorTrainingLogAreSkippedAndListed(@TempDir Path dir) throws Exception {
        assumeTrue(Files.exists(SAMPLES.resolve("nccl-tests-1.log")));
        Files.writeString(dir.resolve("a.yaml"), RUN);
        CliTest.Result alone = run("batch", dir.toString(), "--format", "csv");
        assertEquals(Main.OK, alone.code(), alone.err());
        Files.writeString(dir.resolve("NOTES.txt"), "We ran the 7B on one node.\nStep time was 3.7 s; it felt slow.\n");
        Files.writeString(dir.resolve("ds_config.json"), "{\"train_batch_size\": 64, \"zero_optimization\": {\"stage\": 1}}");
        Files.copy(SAMPLES.resolve("nccl-tests-1.log"), dir.resolve("allreduce.log"));
        Files.writeString(dir.resolve("empty.log"), "");
        Files.write(dir.resolve("loss.png"), new byte[]{(byte) 0x89, 'P', 'N', 'G', 0, 0, 0, 13});
        Files.writeString(dir.resolve(".hidden"), "editor state");
        String[][] why = {{"NOTES.txt", "neither a run file nor a log of a known format"},
                {"allreduce.log", "nccl-tests output, not a training run"}, {"ds_config.json", "not a run file: it has none of the fields"},
                {"empty.log", "empty"}, {"loss.png", "not text: a binary file"}};

        CliTest.Result csv = run("batch", dir.toString(), "--format", "csv");
        assertEquals(Main.OK, csv.code(), "skipped files are no failures: " + csv.err());
        assertEquals(alone.out(), csv.out(), "the csv holds the runs only");
        for (String[] w : why) assertTrue(csv.err().contains("note: skipped " + w[0] + ": " + w[1]), w[0] + ": " + csv.err());
        assertTrue(csv.err().contains("5 file(s) skipped"), csv.err());
        assertFalse(csv.err().contains(".hidden"), csv.err());
        assertFalse(csv.err().contains("error"), csv.err());

        CliTest.Result json = run("batch", dir.toString());
        assertEquals(1, new ObjectMapper().readTree(json.out()).size(), "the json holds the one run");
        for (String format : java.util.List.of("md", "html")) {
            CliTest.Result r = run("batch", dir.toString(), "--format", format);
            assertEquals(Main.OK, r.code(), r.err());
            assertTrue(r.out().contains("Files skipped"), format);
            for (String[] w : why) {
                assertTrue(r.out().contains(w[0]), format + " lists " + w[0]);
                assertTrue(r.out().contains(w[1]), format + " says why " + w[0] + " was skipped");
            }
            // file-name order: NOTES.txt, allreduce.log, ds_config.json, empty.log, loss.png
            assertTrue(r.out().indexOf("NOTES.txt") < r.out().indexOf("allreduce.log")
                    && r.out().indexOf("ds_config.json") < r.out().indexOf("loss.png"), format);
        }
        CliTest.Result none = run("batch", dir.toString(), "--format", "md");
        Files.delete(dir.resolve("NOTES.txt"));
        Files.delete(dir.resolve("allreduce.log"));
        Files.delete(dir.resolve("ds_config.json"));
        Files.delete(dir.resolve("empty.log"));
        Files.delete(dir.resolve("loss.png"));
        assertFalse(run("batch", dir.toString(), "--format", "md").out().contains("Files skipped"), "no section when none is skipped");
        assertTrue(none.out().contains("Files skipped"));
    }

    /** A run file that names its log (of another stem) takes it: the log is no orphan, and it is advised once. */
    @Test
    void aRunFileNamingItsLogTakesIt(@TempDir Path dir) throws Exception {
        assumeTrue(Files.exists(SAMPLES.resolve("internlm-1.log")));
        Files.copy(SAMPLES.resolve("internlm-1.log"), dir.resolve("train-0042.log"));
        Files.writeString(dir.resolve("internlm.yaml"), RUN + "log: train-0042.log\n");
        CliTest.Result r = run("batch", dir.toString());
        assertEquals(Main.OK, r.code(), r.err());
        JsonNode arr = new ObjectMapper().readTree(r.out());
        assertEquals(1, arr.size(), r.out());
        assertEquals(4270.52, arr.get(0).path("observed").path("tokens_per_gpu_per_s").asDouble(), 1e-6);
        assertFalse(r.err().contains("train-0042"), r.err());
    }

    /** The report written into the folder it reads, and reports written there before, are not read as runs. */
    @Test
    void runningTwiceWithTheReportInTheFolderWorks(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("a.yaml"), RUN);
        for (String format : java.util.List.of("html", "md", "csv", "json")) {
            Path report = dir.resolve("report." + format);
            CliTest.Result first = run("batch", dir.toString(), "--format", format, "--out", report.toString());
            assertEquals(Main.OK, first.code(), format + ": " + first.err());
            String written = Files.readString(report);
            CliTest.Result second = run("batch", dir.toString(), "--format", format, "--out", report.toString());
            assertEquals(Main.OK, second.code(), format + ": " + second.err());
            assertFalse(second.err().contains("report." + format), "its own output is not read, nor listed: " + second.err());
            assertEquals(written, Files.readString(report), format + ": the same report again");
        }
        // the md run met report.html, the csv run report.html and the Markdown report, ...: each a report, skipped as such
        CliTest.Result md = run("batch", dir.toString(), "--format", "md", "--out", dir.resolve("report.md").toString());
        assertEquals(Main.OK, md.code(), md.err());
        for (String other : java.util.List.of("report.html", "report.csv", "report.json"))
            assertTrue(md.err().contains("note: skipped " + other + ": a report train-advisor wrote, not a run"), md.err());
        assertTrue(Files.readString(dir.resolve("report.md")).contains("`report.json`: a report train-advisor wrote"));
    }

    /**
     * The fleet report written to a file: each run's report a page of its own in FILE-runs/, linked from its row and
     * linking back; pages of an earlier, larger fleet there are removed, the user's own files left alone.
     */
    @Test
    void theFleetReportWrittenToAFileLinksEachRunsPage(@TempDir Path dir) throws Exception {
        Path runs = Files.createDirectories(dir.resolve("runs"));
        for (String f : java.util.List.of(CliTest.NVLINK, CliTest.PCIE, CliTest.PCIE_2NODES))
            Files.copy(Path.of(f), runs.resolve(Path.of(f).getFileName()));
        for (String ext : java.util.List.of("html", "md")) {
            Path out = dir.resolve("out").resolve("fleet." + ext), folder = dir.resolve("out").resolve("fleet-runs");
            CliTest.Result r = run("batch", runs.toString(), "--format", ext, "--out", out.toString());
            assertEquals(Main.OK, r.code(), r.err());
            String fleet = Files.readString(out);
            for (int i = 1; i <= 3; i++) assertTrue(Files.isRegularFile(folder.resolve("run-0000" + i + "." + ext)), ext + " " + i);
            // file-name order: internlm-7b-nvlink-1node, -pcie-1node, -pcie-2nodes
            String page = Files.readString(folder.resolve("run-00002." + ext));
            assertTrue(page.contains("internlm-7b-pcie-1node") && page.contains("intra-node-bandwidth"), page.substring(0, 300));
            if (ext.equals("html")) {
                assertTrue(fleet.contains("<a href=\"fleet-runs/run-00002.html\">internlm-7b-pcie-1node</a>"), fleet);
                assertTrue(page.contains("<a href=\"../fleet.html\">Back to the fleet</a>"));
            } else {
                assertTrue(fleet.contains("[internlm-7b-pcie-1node](fleet-runs/run-00002.md)"), fleet);
                assertTrue(page.startsWith("[Back to the fleet](../fleet.md)"));
            }
            assertFalse(fleet.contains("<a id=\"run-1\"></a>") || fleet.contains("id=\"run-1\""), "the runs' reports are not on the page");
            Files.writeString(folder.resolve("run-00009." + ext), "a page of a larger fleet");
            Files.writeString(folder.resolve("notes.txt"), "mine");
            assertEquals(Main.OK, run("batch", runs.toString(), "--format", ext, "--out", out.toString()).code());
            assertFalse(Files.exists(folder.resolve("run-00009." + ext)));
            assertEquals("mine", Files.readString(folder.resolve("notes.txt")));
        }
    }

    @Test
    void theProgressBarIsDrawnWhenStandardErrorIsATerminalOrWhenAsked(@TempDir Path dir) throws Exception {
        assertTrue(BatchCommand.showProgress(null, "/dev/pts/3"), "stderr on a pseudo-terminal, stdout anywhere");
        assertTrue(BatchCommand.showProgress(null, "/dev/tty1"));
        assertFalse(BatchCommand.showProgress(null, "pipe:[41234]"));
        assertFalse(BatchCommand.showProgress(null, "/home/me/batch.err"));
        assertFalse(BatchCommand.showProgress(null, "/dev/null"));
        assertFalse(BatchCommand.showProgress(false, "/dev/pts/3"), "--no-progress");
        assertTrue(BatchCommand.showProgress(true, "pipe:[41234]"), "--progress");
        if (Files.isDirectory(Path.of("/proc/self/fd")))
            assertNotNull(BatchCommand.stderrTarget(), "on Linux, /proc tells where standard error goes");

        Files.writeString(dir.resolve("a.yaml"), RUN);
        CliTest.Result asked = run("batch", dir.toString(), "--format", "csv", "--progress");
        assertTrue(asked.err().contains("\r[") && asked.err().contains("a.yaml"), asked.err());
        assertFalse(run("batch", dir.toString(), "--format", "csv", "--no-progress").err().contains("\r"));
    }
}
