package dev.trainadvisor.ingest;

import dev.trainadvisor.pyliteral.PyLiterals;
import dev.trainadvisor.pyliteral.Skipped;
import dev.trainadvisor.pyliteral.Warnings;

import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import static dev.trainadvisor.pyliteral.PyLiterals.show;

/**
 * Reads an InternLM / InternEvo config file ({@code configs/7B_sft.py}, docs/logs.md (InternLM / InternEvo)) into dotted
 * run-file keys, the same shape as {@link ParsedLog#config()}, so LogMerge can fill a run file from it.
 *
 * <p>The file is Python that InternEvo executes; this class executes nothing. {@link PyLiterals} evaluates its
 * top-level {@code name = expression} statements as data (literals, earlier UPPER_CASE constants, arithmetic, dicts,
 * lists and tuples); what it cannot evaluate is skipped and named in the warnings. This class maps the result.
 *
 * <p>Mapping, from the evaluated {@code model}, {@code data} and {@code parallel} dicts:
 * <ul>
 * <li>model: num_layers → model.layers, hidden_size → model.hidden, num_attention_heads → model.heads,
 *     num_kv_attention_heads → model.kv_heads (without it: heads for InternLM's multi-head attention; left out, with
 *     a warning, for the GQA model types, whose default is not heads), vocab_size → model.vocab, mlp_ratio →
 *     model.mlp_ratio, model.gated_mlp true (SwiGLU is InternEvo's default; {@code use_swiglu=False} or {@code
 *     activation_type="gelu"} make it false), model.ffn_hidden derived from hidden and mlp_ratio (see
 *     {@link #ffnHidden}) unless the dict gives a width ({@code intermediate_size} or {@code ffn_hidden_size});
 *     checkpoint → training.recompute, dtype → training.precision, use_flash_attn → training.flash_attention,
 *     num_chunks → parallel.virtual_stages.</li>
 * <li>data: seq_len → training.seq_len, micro_bsz → training.micro_batch_size, micro_num →
 *     training.micro_batches.</li>
 * <li>parallel, in all its shapes ({@code zero1=8}; {@code dict(zero1=8, pipeline=1, tensor=1)}; {@code
 *     dict(zero1=dict(size=-1), tensor=dict(size=1, mode="mtp"), pipeline=dict(size=1, ...), weight=dict(...))};
 *     {@code zero1=dict(size=4, fsdp=False)}; {@code tensor=dict(size=SP, mode="isp")}; {@code
 *     sequence_parallel=False}): tensor size → parallel.tp, pipeline size → parallel.pp, zero1 → parallel.zero_stage
 *     and parallel.zero_group_size, tensor mode or sequence_parallel → parallel.sequence_parallel.</li>
 * </ul>
 * Keys the file does not give are left out (the run file's own defaults then apply), with one exception: a parallel
 * block without {@code zero1} gets InternEvo's default {@code zero1=dict(size=-1)}, ZeRO-1 over all of dp
 * ({@code args_sanity_check} in InternEvo {@code internlm/initialize/launch.py} adds it).
 *
 * <p>Never throws; linear time in the source (see {@link PyLiterals}).
 */
public final class InternEvoConfig {
    /** The config in dotted run-file keys (Integer, Double, Boolean or String values) and what was skipped. */
    public record Result(Map<String, Object> config, List<String> warnings) {
        public Result {
            config = Collections.unmodifiableMap(new TreeMap<>(config));
            warnings = List.copyOf(warnings);
        }
    }

    /** Warnings kept; the rest are counted in one last line. */
    static final int MAX_WARNINGS = Warnings.MAX;

    private InternEvoConfig() {}

    /** The config in dotted run-file keys; see {@link #readWithWarnings}. */
    public static Map<String, Object> read(String pythonSource) {
        return readWithWarnings(pythonSource).config();
    }

    /** The config in dotted run-file keys and a warning for each statement, entry or value that could not be used. */
    public static Result readWithWarnings(String pythonSource) {
        Warnings w = new Warnings();
        Map<String, Object> out = new TreeMap<>();
        try {
            Map<String, Object> globals = PyLiterals.globals(pythonSource, w);
            map(globals, out, w);
        } catch (RuntimeException | StackOverflowError e) {
            // a safety net only: the evaluator bounds its recursion and catches its own errors
            w.add("internal error, config read partly: " + e);
        }
        return new Result(out, w.list());
    }

    // =============================================================== mapping to run-file keys

    private static void map(Map<String, Object> g, Map<String, Object> out, Warnings w) {
        Map<?, ?> model = block(g, "model", w);
        Map<?, ?> data = block(g, "data", w);
        Map<?, ?> parallel = block(g, "parallel", w);

        Integer pp = null;
        if (parallel != null) pp = mapParallel(parallel, out, w);

        if (model != null) {
            Integer layers = positiveInt(model, "num_layers", "model", w);
            Integer hidden = positiveInt(model, "hidden_size", "model", w);
            Integer heads = positiveInt(model, "num_attention_heads", "model", w);
            Integer kv = positiveInt(model, "num_kv_attention_heads", "model", w);
            Integer vocab = positiveInt(model, "vocab_size", "model", w);
            put(out, "model.layers", layers);
            put(out, "model.hidden", hidden);
            put(out, "model.heads", heads);
            if (kv != null) {
                out.put("model.kv_heads", kv);
            } else if (heads != null) {
                // InternLM (model_type INTERNLM, InternEvo's original default) has plain multi-head attention: as many
                // KV heads as heads. The GQA model classes (INTERNLM2, LLAMA2, QWEN2, ...) take num_kv_attention_heads
                // with a default of 12, not num_attention_heads (InternEvo internlm/model/modeling_internlm2.py), so
                // without the key their KV-head count is not what the file seems to say: left out, with a warning.
                Object type = g.get("model_type");
                if (type == null || (type instanceof String ts && ts.toUpperCase(Locale.ROOT).matches("INTERNLM(_MOE)?")))
                    out.put("model.kv_heads", heads);
                else
                    w.add("model.kv_heads: not given (num_kv_attention_heads) for model_type " + show(type)
                            + ", whose model class does not default it to num_attention_heads");
            }
            put(out, "model.vocab", vocab);

            Double ratio = null;
            Object r = get(model, "mlp_ratio");
            if (r != null) {
                if (isNumber(r) && ((Number) r).doubleValue() > 0) ratio = ((Number) r).doubleValue();
                else w.add("model.mlp_ratio: expected a positive number, got " + show(r));
            }
            put(out, "model.mlp_ratio", ratio);

            boolean gated = true;   // InternEvo's FeedForward is SwiGLU unless told otherwise
            Object swiglu = get(model, "use_swiglu");
            if (swiglu instanceof Boolean b) gated = b;
            else if (swiglu != null) w.add("model.use_swiglu: expected True or False, got " + show(swiglu));
            Object act = get(model, "activation_type");
            if (act instanceof String s) {
                if (s.equalsIgnoreCase("gelu")) gated = false;
                else if (!s.equalsIgnoreCase("swiglu")) w.add("model.activation_type: unknown activation '" + s + "'");
            }
            out.put("model.gated_mlp", gated);
            // No InternEvo model dict seen gives the FFN width itself (they give mlp_ratio); should one carry it
            // under a Hugging Face or Megatron name, that width is used and nothing is derived.
            Integer ffn = positiveInt(model, "intermediate_size", "model", w);
            if (ffn == null) ffn = positiveInt(model, "ffn_hidden_size", "model", w);
            if (ffn != null) {
                out.put("model.ffn_hidden", ffn);
            } else if (hidden != null && ratio != null) {
                if (gated) put(out, "model.ffn_hidden", ffnHidden(hidden, ratio));
                else w.add("model.ffn_hidden: not derived for a non-SwiGLU MLP (whether it is rounded to 256 depends on "
                        + "the InternEvo version)");
            }

            Object ck = get(model, "checkpoint");
            if (ck != null) {
                String rc = recompute(ck, layers, w);
                if (rc != null) out.put("training.recompute", rc);
                // a fraction recomputes int(num_layers * checkpoint) of the layers: the run file's recompute_fraction
                if ("full".equals(rc) && isNumber(ck) && layers != null && ((Number) ck).doubleValue() < 1) {
                    long n = (long) Math.floor(layers * ((Number) ck).doubleValue());
                    out.put("training.recompute_fraction", (double) n / layers);
                }
            }
            Object dtype = get(model, "dtype");
            if (dtype != null) {
                String p = precision(dtype);
                if (p != null) out.put("training.precision", p);
                else w.add("model.dtype: unknown dtype " + show(dtype));
            }
            Object fa = get(model, "use_flash_attn");
            if (fa instanceof Boolean b) out.put("training.flash_attention", b);
            else if (fa != null) w.add("model.use_flash_attn: expected True or False, got " + show(fa));

            Integer chunks = positiveInt(model, "num_chunks", "model", w);
            if (chunks != null) {
                if (chunks > 1 && pp != null && pp == 1)
                    // InternEvo picks the interleaved scheduler only when pipeline parallelism is on
                    w.add("model.num_chunks=" + chunks + " ignored: with pipeline size 1 there is nothing to interleave");
                else out.put("parallel.virtual_stages", chunks);
            }
            Object experts = get(model, "num_experts");
            if (isNumber(experts) && ((Number) experts).doubleValue() > 1)
                w.add("model.num_experts=" + show(experts) + ": MoE settings are not read from InternEvo configs");
        }

        if (data != null) {
            put(out, "training.seq_len", positiveInt(data, "seq_len", "data", w));
            put(out, "training.micro_batch_size", positiveInt(data, "micro_bsz", "data", w));
            put(out, "training.micro_batches", positiveInt(data, "micro_num", "data", w));
        }
    }

    /** The parallel block; returns the pipeline size when the block gives it. */
    private static Integer mapParallel(Map<?, ?> p, Map<String, Object> out, Warnings w) {
        // zero1: an int or dict(size=, fsdp=); absent means InternEvo's default dict(size=-1, fsdp=False)
        Object z = p.containsKey("zero1") ? p.get("zero1") : Long.valueOf(-1);
        Long zSize = null;
        boolean fsdp = false;
        if (z instanceof Long l) {
            zSize = l;
        } else if (z instanceof Map<?, ?> zm) {
            Object s = zm.containsKey("size") ? zm.get("size") : Long.valueOf(-1);
            if (s instanceof Long l) zSize = l;
            else if (s != Skipped.SKIPPED) w.add("parallel.zero1.size: expected an integer, got " + show(s));
            Object f = get(zm, "fsdp");
            if (f instanceof Boolean b) fsdp = b;
            else if (f != null) w.add("parallel.zero1.fsdp: expected True or False, got " + show(f));
        } else if (z != Skipped.SKIPPED) {
            w.add("parallel.zero1: expected an integer or dict(size=...), got " + show(z));
        }
        if (zSize != null) {
            // size <= 0: the ZeRO group is the whole dp group; 1: no ZeRO; n > 1: optimizer state sharded over n ranks
            if (fsdp) {
                out.put("parallel.zero_stage", 3);
                if (zSize == 1) w.add("parallel.zero1: fsdp=True over a group of size 1 shards nothing");
            } else {
                out.put("parallel.zero_stage", zSize == 1 ? 0 : 1);
            }
            if (zSize > 1) {
                if (zSize <= Integer.MAX_VALUE) out.put("parallel.zero_group_size", (int) (long) zSize);
                else w.add("parallel.zero1.size: out of range: " + zSize);
            }
        }

        // tensor: an int or dict(size=, mode=)
        Object t = get(p, "tensor");
        String mode = null;
        if (t != null) {
            Object size = t;
            if (t instanceof Map<?, ?> tm) {
                size = get(tm, "size");
                Object m = get(tm, "mode");
                if (m instanceof String s) mode = s.toLowerCase(Locale.ROOT);
                else if (m != null) w.add("parallel.tensor.mode: expected a string, got " + show(m));
            }
            Integer tp = positive(size, "parallel.tensor" + (t instanceof Map ? ".size" : ""), w);
            put(out, "parallel.tp", tp);
            if (mode != null) {
                switch (mode) {
                    case "mtp" -> out.put("parallel.sequence_parallel", false);     // Megatron TP, no SP
                    case "msp", "fsp" -> out.put("parallel.sequence_parallel", true); // TP with SP of the same size
                    case "isp" -> {
                        // isp: InternEvo's sequence parallelism without tensor parallelism of the weights; the tensor
                        // size is the sequence-parallel size, and it takes the tensor dimension of the process grid,
                        // so dp = world / (pipeline * size) as with TP. The run file has no such mode: tp = that size
                        // and sequence_parallel true.
                        out.put("parallel.sequence_parallel", true);
                        w.add("parallel.tensor: mode \"isp\" (InternEvo sequence parallel): its size" + (tp != null
                                ? " " + tp : "") + " is the sequence-parallel size, read as parallel.tp with "
                                + "parallel.sequence_parallel true; the weights are not split by tensor parallelism");
                    }
                    default -> w.add("parallel.tensor.mode: unknown mode \"" + mode + "\"");
                }
            }
        }
        Object sp = get(p, "sequence_parallel");
        if (sp instanceof Boolean b) {
            Object fromMode = out.get("parallel.sequence_parallel");
            if (fromMode == null) out.put("parallel.sequence_parallel", b);
            else if (!fromMode.equals(b))
                w.add("parallel.sequence_parallel=" + (b ? "True" : "False") + " ignored: tensor mode \"" + mode
                        + "\" decides it");
        } else if (sp != null) {
            w.add("parallel.sequence_parallel: expected True or False, got " + show(sp));
        }

        // pipeline: an int or dict(size=, interleaved_overlap=)
        Integer pp = null;
        Object pl = get(p, "pipeline");
        if (pl != null) {
            boolean isMap = pl instanceof Map;
            pp = positive(isMap ? ((Map<?, ?>) pl).get("size") : pl, "parallel.pipeline" + (isMap ? ".size" : ""), w);
            put(out, "parallel.pp", pp);
        }

        Object wt = get(p, "weight");
        if (wt instanceof Map<?, ?> wm && wm.get("size") instanceof Long ws && ws > 1)
            w.add("parallel.weight.size=" + ws + ": weight parallelism (parameters sharded and gathered per layer) has "
                    + "no run-file field");
        return pp;
    }

    /**
     * FFN width as InternEvo builds it: the model passes {@code int(hidden_size * mlp_ratio)} to FeedForward
     * (InternEvo {@code internlm/model/modeling_internlm.py}, PackedFlashBaseLayer1D), which rounds it up to a multiple
     * of {@code multiple_of=256}: {@code hidden_features = multiple_of * ((hidden_features + multiple_of - 1) //
     * multiple_of)} (InternEvo {@code internlm/model/modules/mlp.py}, FeedForward.__init__; older releases have the same
     * line in {@code internlm/model/linear.py}). InternLM-7B: int(4096 * 8/3) = 10922 → 11008; Qwen2-7B: int(3584 *
     * 5.25) = 18816 → 18944. Null when out of range.
     */
    static Integer ffnHidden(int hidden, double mlpRatio) {
        double f = Math.floor(hidden * mlpRatio);   // Python int() truncates; the product is positive
        if (!(f >= 1) || f > Integer.MAX_VALUE - 256) return null;
        long h = (long) f;
        return (int) (256 * ((h + 255) / 256));
    }

    /**
     * model.checkpoint → training.recompute. False (or 0) → none; True → full. A number is the share of layers that
     * recompute their activations: InternEvo checkpoints the first {@code int(num_layers * checkpoint)} layers of each
     * stage (PackedFlashInternLm1D, {@code checkpoint_layer_num}). The run file can only say none, selective or full,
     * so any share > 0 is read as full (with a warning naming the share), except one that rounds down to no layer at
     * all, which is none.
     */
    private static String recompute(Object ck, Integer layers, Warnings w) {
        if (ck instanceof Boolean b) return b ? "full" : "none";
        if (isNumber(ck)) {
            double f = ((Number) ck).doubleValue();
            if (f <= 0) return "none";
            if (f >= 1) return "full";
            if (layers != null) {
                long n = (long) Math.floor(layers * f);
                if (n == 0) {
                    w.add("model.checkpoint=" + show(ck) + ": int(" + layers + " * " + show(ck) + ") = 0 layers "
                            + "recompute, read as training.recompute none");
                    return "none";
                }
                w.add("model.checkpoint=" + show(ck) + ": recomputes " + n + " of " + layers + " layers: recompute full, "
                        + "recompute_fraction " + n + "/" + layers);
            } else {
                w.add("model.checkpoint=" + show(ck) + ": recomputes that share of the layers; the run file can only "
                        + "say full");
            }
            return "full";
        }
        w.add("model.checkpoint: expected True, False or a fraction, got " + show(ck));
        return null;
    }

    /**
     * model.dtype → training.precision. InternEvo accepts "torch.float16", "torch.half", "torch.bfloat16",
     * "torch.float32", "torch.tf32". tf32 keeps fp32 weights and activations (only the matmuls use TF32), so it is
     * fp32 here.
     */
    static String precision(Object dtype) {
        if (!(dtype instanceof String s)) return null;
        String d = s.trim().toLowerCase(Locale.ROOT);
        if (d.startsWith("torch.")) d = d.substring("torch.".length());
        return switch (d) {
            case "bfloat16", "bf16" -> "bf16";
            case "float16", "half", "fp16" -> "fp16";
            case "float32", "float", "fp32", "tf32" -> "fp32";
            default -> null;
        };
    }

    private static Map<?, ?> block(Map<String, Object> g, String name, Warnings w) {
        Object v = g.get(name);
        if (v == null) return null;
        if (v instanceof Map<?, ?> m) return m;
        w.add(name + ": expected dict(...), got " + show(v));
        return null;
    }

    private static Integer positiveInt(Map<?, ?> m, String key, String block, Warnings w) {
        Object v = m.get(key);
        return v == null ? null : positive(v, block + "." + key, w);
    }

    private static Integer positive(Object v, String what, Warnings w) {
        if (v instanceof Long l && l >= 1 && l <= Integer.MAX_VALUE) return (int) (long) l;
        if (v != null && v != Skipped.SKIPPED) w.add(what + ": expected a positive integer, got " + show(v));
        return null;
    }

    /** The value of {@code key}, or null when absent or already reported as not evaluated. */
    private static Object get(Map<?, ?> m, String key) {
        Object v = m.get(key);
        return v == Skipped.SKIPPED ? null : v;
    }

    private static void put(Map<String, Object> out, String key, Object v) {
        if (v != null) out.put(key, v);
    }

    private static boolean isNumber(Object v) { return v instanceof Long || v instanceof Double; }
}
