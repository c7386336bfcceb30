package dev.trainadvisor.assemble;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.ingest.ParsedLog;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.perf.MemoryEstimate;
import dev.trainadvisor.perf.StepModel;
import dev.trainadvisor.spec.Assumption;
import dev.trainadvisor.spec.FlopsConvention;
import dev.trainadvisor.spec.JsonTrees;
import dev.trainadvisor.spec.Metric;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What a run read around a training log takes where neither its user (a run file, a {@code runs.yaml} entry, the
 * options of {@code advise --log}) nor the log gives a value: one set of inferences for every way a log is read.
 * Each value taken is an {@link Assumption} the advice carries, with the option that sets it:
 *
 * <ul>
 *   <li>the sequence length, where the log prints TFLOPS in a known count and the pace they were counted from
 *       ({@link SeqFromFlops}): the one at which the count gives the printed figure;</li>
 *   <li>tp, pp (and ep for an MoE) 1, on more than one GPU (on one there is no other value);</li>
 *   <li>recompute none; precision bf16, or fp16 on a GPU without bf16 tensor cores;</li>
 *   <li>the micro-batches, or the micro-batch size, from the global batch the log prints: global batch =
 *       micro_batch_size x micro_batches x dp; a micro-batch size of 1 where neither is known; one micro-batch where
 *       the log prints no global batch;</li>
 *   <li>the ZeRO stage: a run that ran fit its GPUs' memory, so of the stages at which it fits, the one whose predicted
 *       peak is nearest the peak the log measured, else the lowest; 0 when it fits at none.</li>
 * </ul>
 *
 * A run file read without a log takes its documented defaults instead and assumes nothing.
 */
final class LogInference {
    private LogInference() {}

    /** The option of {@code advise --log} that sets each run-file field (the command line's names for the run file's). */
    static final Map<String, String> OPTIONS = options();

    private static Map<String, String> options() {
        Map<String, String> m = new LinkedHashMap<>();
        String[][] all = {{"cluster", "--cluster"}, {"cluster.nodes", "--nodes"}, {"model", "--model"},
                {"parallel.tp", "--tp"}, {"parallel.pp", "--pp"}, {"parallel.dp", "--dp"}, {"parallel.cp", "--cp"},
                {"parallel.ep", "--ep"}, {"parallel.zero_stage", "--zero-stage"}, {"parallel.zero_group_size", "--zero-group-size"},
                {"parallel.sequence_parallel", "--sequence-parallel"}, {"parallel.virtual_stages", "--virtual-stages"},
                {"parallel.rank_order", "--rank-order"},
                {"training.seq_len", "--seq-len"}, {"training.micro_batch_size", "--micro-batch-size"},
                {"training.micro_batches", "--micro-batches"}, {"training.recompute", "--recompute"},
                {"training.precision", "--precision"}, {"training.flash_attention", "--flash-attention"},
                {"training.attention_kernel", "--attention-kernel"}, {"training.elementwise_kernels", "--elementwise-kernels"},
                {"training.cuda_graphs", "--cuda-graphs"}, {"training.optimizer_kernel", "--optimizer-kernel"},
                {"training.framework", "--framework"}, {"training.framework_version", "--framework-version"}};
        for (String[] f : all) m.put(f[0], f[1]);
        return java.util.Collections.unmodifiableMap(m);
    }

    /** A global batch in sequences per optimizer step, and how the log gave it. */
    record GlobalBatch(long sequences, String said) {}

    /**
     * The values of {@code t} (the user's fields with the log's merged in) that neither gave, put into {@code t} and
     * returned in the order they were taken.
     */
    static List<Assumption> infer(ObjectNode t, ParsedLog log, String file, boolean fromTopology, Described by,
                                  Consumer<String> notes) {
        return new Run(t, log, file, fromTopology, by, notes, new SpecReader(), new ArrayList<>()).infer();
    }

    private record Run(ObjectNode t, ParsedLog log, String file, boolean fromTopology, Described by, Consumer<String> notes,
                       SpecReader reader, List<Assumption> taken) {

        List<Assumption> infer() {
            required();
            RunSpec first = firstReading();
            boolean several = first.cluster().gpus() > 1;
            if (several && !has("parallel.tp")) assume("parallel.tp", 1, "");
            if (several && !has("parallel.pp")) assume("parallel.pp", 1, "");
            if (several && first.run().model().isMoe() && !has("parallel.ep")) assume("parallel.ep", 1, "");
            if (!has("training.recompute")) assume("training.recompute", "none", "");
            if (!has("training.precision")) {
                boolean bf16 = first.cluster().gpu().peakTflops().get(Precision.BF16) != null;
                assume("training.precision", bf16 ? "bf16" : "fp16", bf16 ? ""
                        : "as " + first.cluster().gpu().key() + " has no bf16 tensor cores");
            }
            microBatches(first.run().parallel().dp(), first.run().training().seqLen());
            zeroStage();
            return List.copyOf(taken);
        }

        /**
         * The model and the sequence length: nothing can stand in for the model; the sequence length only where the
         * log's printed TFLOPS give it ({@link SeqFromFlops}). Where both are missing, one message names both, so
         * that a first try learns everything it must add at once (issue 22: the first advise --log took three tries).
         */
        private void required() {
            if (!has("model") && !has("training.seq_len"))
                throw new SpecException(file, "model", "a model preset or the model's fields, and the sequence length"
                        + " (training.seq_len): the " + log.format() + " log prints neither; set " + by.setBy("model")
                        + " and " + by.setBy("training.seq_len") + (printedFlops() == null ? ""
                        : " (or " + by.setBy("model") + " alone: the TFLOPS the log prints may give the sequence length)"));
            if (!has("model"))
                throw new SpecException(file, "model", "a model preset or the model's fields: the " + log.format()
                        + " log does not print the model's shape; set " + by.setBy("model"));
            if (!has("training.seq_len") && !seqFromPrintedFlops())
                throw new SpecException(file, "training.seq_len", "the sequence length: the " + log.format()
                        + " log does not print it" + (printedFlops() == null ? ""
                        : ", and the TFLOPS it prints are those of no customary length (a power of two, or three times one)"
                        + " in its count of this model (is the model the run's?)") + "; set " + by.setBy("training.seq_len"));
        }

        /** The count of the TFLOPS the run's metrics hold (the log's, or the user's), or null: none, or of no known count. */
        private FlopsConvention printedFlops() {
            JsonNode m = t.path("metrics");
            if (!m.path("tflops_per_gpu").isNumber() || !m.path("tflops_convention").isTextual()) return null;
            return FlopsConvention.parse(m.path("tflops_convention").asText());
        }

        /** The sequence length the printed TFLOPS were counted at, derived into the run; false where they give none. */
        private boolean seqFromPrintedFlops() {
            FlopsConvention c = printedFlops();
            if (c == null) return false;
            JsonNode m = t.get("metrics");
            ObjectNode draft = t.deepCopy();
            JsonTrees.put(draft, "training.seq_len", json(SeqFromFlops.PLACEHOLDER));
            RunSpec s = firstReading(draft);
            GlobalBatch global = globalBatch(log, 0);
            SeqFromFlops.Derived d = SeqFromFlops.derive(c, s.run().model(), s.run().training(), m.path("tflops_per_gpu").asDouble(),
                    number(m, "tokens_per_gpu_per_s"), number(m, "step_time_s"),
                    global == null ? 0 : global.sequences(), global == null ? null : global.said(), s.cluster().gpus());
            if (d == null) return false;
            derived("training.seq_len", d.tokens(), d.why());
            return true;
        }

        private static double number(JsonNode metrics, String key) {
            return metrics.path(key).isNumber() ? metrics.path(key).asDouble() : Double.NaN;
        }

        /**
         * A first reading of the run with stand-ins (a micro-batch of 1, fp16, which every GPU runs), for the cluster's
         * GPUs and the data-parallel ranks; at the lowest ZeRO stage the framework runs.
         */
        private RunSpec firstReading() {
            return firstReading(t.deepCopy());
        }

        /** {@link #firstReading()} of {@code draft}, a copy of the run's tree. */
        private RunSpec firstReading(ObjectNode draft) {
            if (!has("training.micro_batch_size")) JsonTrees.put(draft, "training.micro_batch_size", json(1));
            if (!has("training.precision")) JsonTrees.put(draft, "training.precision", json("fp16"));
            SpecException refused = null;
            for (int stage = 0; stage <= 3; stage++) {
                try {
                    return reader.read(draft, file, fromTopology, log.format(), log.printedOn(), log.release());
                } catch (SpecException e) {
                    // a framework that does not run ZeRO 0 (FSDP only): the first stage it runs
                    if (has("parallel.zero_stage") || !"parallel.zero_stage".equals(e.field())) throw e;
                    if (refused == null) refused = e;
                    JsonTrees.put(draft, "parallel.zero_stage", json(stage + 1));
                }
            }
            throw refused;
        }

        private void assume(String key, Object value, String reason) {
            JsonTrees.put(t, key, json(value));
            taken.add(new Assumption(key, value, reason, by.setBy(key), false));
        }

        private void derived(String key, long value, String reason) {
            JsonTrees.put(t, key, json(value));
            taken.add(new Assumption(key, value, reason, by.setBy(key), true));
        }

        private boolean has(String key) {
            JsonNode n = JsonTrees.at(t, key);
            return n != null && !n.isNull();
        }

        /** Micro-batches from the global batch the log prints: global batch = micro_batch_size x micro_batches x dp. */
        private void microBatches(int dp, int seqLen) {
            GlobalBatch global = globalBatch(log, seqLen);
            boolean size = has("training.micro_batch_size"), count = has("training.micro_batches");
            if (global == null) {
                if (!size) assume("training.micro_batch_size", 1, "");
                if (!count) assume("training.micro_batches", 1, "the log prints no global batch size");
                return;
            }
            if (!size && count) {
                derive("training.micro_batch_size", "sequences per micro-batch", global,
                        JsonTrees.at(t, "training.micro_batches").asInt(), "micro_batches", dp);
                return;
            }
            if (!size) assume("training.micro_batch_size", 1, "");
            int mbs = JsonTrees.at(t, "training.micro_batch_size").asInt();
            if (!count) {
                derive("training.micro_batches", "micro-batches per step", global, mbs, "micro_batch_size", dp);
                return;
            }
            long mb = JsonTrees.at(t, "training.micro_batches").asLong();
            if (mbs * mb * dp == global.sequences()) return;
            if (by.commandLine())
                notes.accept("warning: micro_batch_size x micro_batches x dp = " + mbs + " x " + mb + " x " + dp + " = "
                        + mbs * mb * dp + " sequences a step, but " + global.said());
            else throw new SpecException(file, "training.micro_batches", "micro_batch_size x micro_batches x dp to equal the "
                    + "global batch the " + log.format() + " log prints (" + global.sequences() + " sequences); the run gives "
                    + mbs + " x " + mb + " x " + dp + " = " + mbs * mb * dp);
        }

        /** {@code key} = global batch / (the other factor x dp), a whole number or an error naming {@code key}. */
        private void derive(String key, String noun, GlobalBatch global, int other, String otherKey, int dp) {
            long per = (long) other * dp;
            if (global.sequences() % per != 0) {
                String options = key.endsWith("micro_batch_size") ? by.setBy(key) + " or " + by.setBy("training.micro_batches")
                        : by.setBy("training.micro_batch_size") + ", the layout (" + by.setBy("parallel.tp") + ", "
                        + by.setBy("parallel.pp") + ", " + by.setBy("parallel.cp") + ", " + by.setBy("parallel.dp") + ") or "
                        + by.setBy(key);
                throw new SpecException(file, key, "a whole number of " + noun + ": " + global.said() + " is not a multiple of "
                        + otherKey + " x dp = " + other + " x " + dp + " = " + per + "; set " + options);
            }
            derived(key, global.sequences() / per, global.said() + " / (" + otherKey + " " + other + " x dp " + dp + ")");
        }

        /**
         * ZeRO stage: a run that ran fit its GPUs' memory, so of the stages at which it fits, the one whose predicted
         * peak is nearest the peak the log measured; else the stage the framework's recipes run, where the run fits at
         * it (NeMo's distributed optimizer); else the lowest at which it fits; the recipes' stage, else 0, when none
         * fits.
         */
        private void zeroStage() {
            if (has("parallel.zero_stage")) return;
            Double measured = log.metrics().get(Metric.PEAK_MEMORY_GB.key());
            int best = -1;
            Integer recipe = null;
            String framework = null;
            boolean recipeFits = false;
            double bestDistance = Double.POSITIVE_INFINITY, bestGb = Double.NaN;
            for (int stage = 0; stage <= 3; stage++) {
                ObjectNode trial = t.deepCopy();
                JsonTrees.put(trial, "parallel.zero_stage", json(stage));
                RunSpec s;
                try {
                    s = reader.read(trial, file, fromTopology, log.format(), log.printedOn(), log.release());
                } catch (SpecException e) {
                    if ("parallel.zero_stage".equals(e.field())) continue;   // a stage the framework does not run
                    throw e;
                }
                recipe = s.run().training().framework().recipeZeroStageOrNull();
                framework = s.run().training().framework().key();
                MemoryEstimate m = StepModel.predict(s.cluster(), s.run()).memory();
                if (m.totalGb() > m.capacityGb()) continue;
                if (recipe != null && recipe == stage) recipeFits = true;
                double distance = measured == null ? stage : Math.abs(m.totalGb() - measured);
                if (distance < bestDistance) {
                    best = stage;
                    bestDistance = distance;
                    bestGb = m.totalGb();
                }
            }
            String byRecipe = "the stage " + framework + "'s recipes run (recipe_zero_stage of knowledge-base/frameworks/"
                    + framework + ".json)";
            if (best < 0) assume("parallel.zero_stage", recipe != null ? recipe : 0, (recipe != null ? byRecipe + ", " : "")
                    + "though the run fits the GPUs' memory at no stage as laid out");
            else if (measured == null && recipeFits) assume("parallel.zero_stage", recipe, byRecipe);
            else if (measured == null) assume("parallel.zero_stage", best, best == 0 ? ""
                    : "the lowest stage at which the run fits the GPUs' memory");
            else assume("parallel.zero_stage", best, String.format(Locale.ROOT, "the stage at which the run fits and its "
                    + "predicted peak (%.1f GB) is nearest the %.1f GB the log measured", bestGb, measured));
        }
    }

    /**
     * The global batch the log prints: its configuration's, else the global_batch_size it logs per step, else its
     * tokens per step over the sequence length; null when it gives none.
     */
    static GlobalBatch globalBatch(ParsedLog p, int seqLen) {
        Object v = p.config().get(LogMerge.GLOBAL_BATCH);
        if (v == null) v = p.extra().get("global_batch_size");
        if (v instanceof Number n && n.doubleValue() >= 1 && n.doubleValue() == Math.rint(n.doubleValue()))
            return new GlobalBatch(n.longValue(), "the log's global batch of " + n.longValue() + " sequences");
        if (p.extra().get("tokens_per_step") instanceof Number tk && seqLen > 0) {
            double sequences = tk.doubleValue() / seqLen;
            if (sequences >= 1 && sequences == Math.rint(sequences))
                return new GlobalBatch((long) sequences, "the log's " + tk.longValue() + " tokens a step = "
                        + (long) sequences + " sequences of " + seqLen);
        }
        return null;
    }

    private static JsonNode json(Object value) { return SpecReader.JSON_MAPPER.valueToTree(value); }
}
