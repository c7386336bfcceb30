package dev.trainadvisor.ingest;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Reads an InternLM / InternEvo config file ({@code configs/7B_sft.py}, log-formats.md section 1.5) into dotted
 * run-file keys, the same shape as {@link ParsedLog#config()}, so LogMerge can fill a run file from it.
 *
 * <p>The file is Python that InternEvo executes; this class executes nothing. It splits the source into logical
 * lines the way Python's tokenizer does (comments, strings with every prefix and triple quotes, line continuations
 * inside brackets and after a backslash, {@code ;}) and evaluates top-level {@code name = expression} statements with
 * a small recursive-descent evaluator that knows only: int, float, string (adjacent literals joined), True, False,
 * None; names of UPPER_CASE constants assigned earlier in the file; {@code + - * / // **} (Python precedence: {@code
 * -2**2 == -4}, {@code **} right-associative, {@code /} always a float, {@code //} floor division) and parentheses;
 * {@code dict(key=value, ...)}, {@code {key: value, ...}}, lists and tuples. Anything else (calls, subscripts such as
 * {@code data["total_steps"]}, attributes, f-strings, comprehensions, imports, if-blocks, augmented assignments) is
 * not evaluated: the statement or, inside a dict, just that entry is skipped and named in the warnings. Integer
 * arithmetic that leaves the 64-bit range is refused rather than approximated.
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
 * <p>Never throws; one pass over the source plus one over its tokens (linear time); nesting deeper than
 * {@value #MAX_DEPTH} brackets or unary operators is refused rather than recursed into.
 */
public final class InternEvoConfig {
    /** The config in dotted run-file keys (Integer, Double, Boolean or String values) and what was skipped. */
    public record Result(Map<String, Object> config, List<String> warnings) {
        public Result {
            config = Collections.unmodifiableMap(new TreeMap<>(config));
            warnings = List.copyOf(warnings);
        }
    }

    static final int MAX_DEPTH = 200;
    static final int MAX_WARNINGS = 100;

    /** Python's None (a Java null cannot sit in the maps the evaluator builds). */
    enum PyNone { NONE; @Override public String toString() { return "None"; } }

    /** A dict entry whose value could not be evaluated (already warned about): not the same as an absent key. */
    enum Skipped { SKIPPED; @Override public String toString() { return "<not evaluated>"; } }

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
            Map<String, Object> globals = globals(pythonSource, w);
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

    static String show(Object v) {
        if (v instanceof String s) return '"' + (s.length() > 40 ? s.substring(0, 40) + "..." : s) + '"';
        if (v instanceof Boolean b) return b ? "True" : "False";
        if (v instanceof Map) return "a dict";
        if (v instanceof List) return "a list";
        return String.valueOf(v);
    }

    static final class Warnings {
        private final List<String> list = new ArrayList<>();
        private int dropped;

        void add(String s) {
            if (list.size() < MAX_WARNINGS) list.add(s);
            else dropped++;
        }

        List<String> list() {
            if (dropped == 0) return list;
            List<String> l = new ArrayList<>(list);
            l.add(dropped + " more warnings not shown");
            return l;
        }
    }

    // =============================================================== evaluation of the module

    /**
     * The module's top-level names after "running" it: each {@code name = expression} statement evaluated in order
     * (values: Long, Double, Boolean, String, {@link PyNone}, Map for dicts, List for lists and tuples). A statement
     * that cannot be evaluated is skipped with a warning, and its name is forgotten.
     */
    static Map<String, Object> globals(String src, Warnings w) {
        Map<String, Object> g = new LinkedHashMap<>();
        if (src == null) {
            w.add("no config text");
            return g;
        }
        Tokens t = new Tokenizer(src).run();
        Evaluator ev = new Evaluator(t, g, w);
        // the first statement's indentation is the module level (Python would refuse a wholly indented paste)
        int base = t.stmtCount > 0 ? t.stmtIndent[0] : 0;
        for (int s = 0; s < t.stmtCount; s++) {
            if (t.stmtIndent[s] > base) continue;    // the body of an if/def/for/with, whose header was reported
            ev.statement(t.stmtStart[s], t.stmtEnd[s]);
        }
        return g;
    }

    /** Token kinds. */
    static final int NUM = 0, STR = 1, FSTR = 2, NAME = 3, OP = 4, ERR = 5;

    /** The token stream, statements as token ranges, and each bracket's partner. */
    static final class Tokens {
        final String src;
        int n;
        int[] kind = new int[64];
        Object[] val = new Object[64];   // Long/Double for NUM, String for STR/NAME/OP, message for ERR
        int[] line = new int[64];
        int[] from = new int[64];
        int[] to = new int[64];
        int[] match;                      // partner bracket, -1 when unmatched or not a bracket
        int stmtCount;
        int[] stmtStart = new int[16], stmtEnd = new int[16], stmtIndent = new int[16];

        Tokens(String src) { this.src = src; }

        void add(int k, Object v, int ln, int f, int t) {
            if (n == kind.length) {
                int c = n * 2;
                kind = java.util.Arrays.copyOf(kind, c);
                val = java.util.Arrays.copyOf(val, c);
                line = java.util.Arrays.copyOf(line, c);
                from = java.util.Arrays.copyOf(from, c);
                to = java.util.Arrays.copyOf(to, c);
            }
            kind[n] = k; val[n] = v; line[n] = ln; from[n] = f; to[n] = t;
            n++;
        }

        void stmt(int start, int end, int indent) {
            if (end <= start) return;
            if (stmtCount == stmtStart.length) {
                int c = stmtCount * 2;
                stmtStart = java.util.Arrays.copyOf(stmtStart, c);
                stmtEnd = java.util.Arrays.copyOf(stmtEnd, c);
                stmtIndent = java.util.Arrays.copyOf(stmtIndent, c);
            }
            stmtStart[stmtCount] = start; stmtEnd[stmtCount] = end; stmtIndent[stmtCount] = indent;
            stmtCount++;
        }

        boolean isOp(int i, String op) { return i >= 0 && i < n && kind[i] == OP && op.equals(val[i]); }

        boolean opener(int i) { return isOp(i, "(") || isOp(i, "[") || isOp(i, "{"); }

        boolean closer(int i) { return isOp(i, ")") || isOp(i, "]") || isOp(i, "}"); }

        /** Up to 60 characters of source from token a to token b-1, on one line. */
        String text(int a, int b) {
            if (a >= n || b <= a) return "";
            int f = from[a], e = Math.min(to[Math.min(b, n) - 1], f + 60);
            String s = src.substring(f, Math.max(f, e)).replaceAll("\\s+", " ");
            return e < to[Math.min(b, n) - 1] ? s + "..." : s;
        }
    }

    /** Python's tokenizer, as far as configs need it. One pass. */
    static final class Tokenizer {
        private final String s;
        private final int len;
        private final Tokens t;
        private int pos, line = 1, depth;

        Tokenizer(String src) {
            this.s = src.startsWith("\uFEFF") ? src.substring(1) : src;
            this.len = s.length();
            this.t = new Tokens(s);
        }

        Tokens run() {
            boolean lineStart = true;
            int indent = 0;
            int stmtStart = 0;
            while (pos < len) {
                char c = s.charAt(pos);
                if (lineStart) {
                    int col = 0;
                    while (pos < len && (s.charAt(pos) == ' ' || s.charAt(pos) == '\t' || s.charAt(pos) == '\f')) {
                        col++;
                        pos++;
                    }
                    if (pos >= len) break;
                    c = s.charAt(pos);
                    if (c == '\n' || c == '\r' || c == '#') {
                        lineStart = c == '#' ? skipComment() : true;
                        if (c != '#') newline();
                        continue;   // a blank or comment-only line
                    }
                    indent = col;
                    lineStart = false;
                    stmtStart = t.n;
                }
                if (c == '\n' || c == '\r') {
                    newline();
                    if (depth == 0) {
                        t.stmt(stmtStart, t.n, indent);
                        stmtStart = t.n;
                        lineStart = true;
                    }
                } else if (c == ' ' || c == '\t' || c == '\f') {
                    pos++;
                } else if (c == '#') {
                    skipComment();
                } else if (c == '\\' && pos + 1 < len && (s.charAt(pos + 1) == '\n' || s.charAt(pos + 1) == '\r')) {
                    pos++;
                    newline();   // an explicit line continuation
                } else if (c == ';' && depth == 0) {
                    pos++;
                    t.stmt(stmtStart, t.n, indent);
                    stmtStart = t.n;
                } else if (c == '"' || c == '\'') {
                    string(pos, pos, "");
                } else if (Character.isDigit(c) || (c == '.' && pos + 1 < len && Character.isDigit(s.charAt(pos + 1)))) {
                    number();
                } else if (c == '_' || Character.isLetter(c)) {
                    name();
                } else {
                    op(c);
                }
            }
            if (!lineStart) t.stmt(stmtStart, t.n, indent);
            matchBrackets();
            return t;
        }

        /** Skips to the end of the line; returns true (the next character starts a line) for the caller's flag. */
        private boolean skipComment() {
            while (pos < len && s.charAt(pos) != '\n' && s.charAt(pos) != '\r') pos++;
            return true;
        }

        private void newline() {
            if (s.charAt(pos) == '\r' && pos + 1 < len && s.charAt(pos + 1) == '\n') pos++;
            pos++;
            line++;
        }

        private void name() {
            int start = pos;
            while (pos < len && (s.charAt(pos) == '_' || Character.isLetterOrDigit(s.charAt(pos)))) pos++;
            String word = s.substring(start, pos);
            if (pos < len && (s.charAt(pos) == '"' || s.charAt(pos) == '\'') && word.length() <= 2
                    && word.toLowerCase(Locale.ROOT).matches("[rbuf]{1,2}")) {
                string(start, pos, word.toLowerCase(Locale.ROOT));
                return;
            }
            t.add(NAME, word, line, start, pos);
        }

        /** A string literal whose prefix starts at {@code start} and whose quote is at {@code q}. */
        private void string(int start, int q, String prefix) {
            int ln = line;
            char quote = s.charAt(q);
            boolean triple = q + 2 < len && s.charAt(q + 1) == quote && s.charAt(q + 2) == quote;
            boolean raw = prefix.indexOf('r') >= 0;
            pos = q + (triple ? 3 : 1);
            StringBuilder b = new StringBuilder();
            while (true) {
                if (pos >= len) {
                    t.add(ERR, "unterminated string", ln, start, pos);
                    return;
                }
                char c = s.charAt(pos);
                if (c == quote && (!triple || (pos + 2 < len && s.charAt(pos + 1) == quote && s.charAt(pos + 2) == quote))) {
                    pos += triple ? 3 : 1;
                    break;
                }
                if (c == '\n' || c == '\r') {
                    if (!triple) {
                        t.add(ERR, "unterminated string", ln, start, pos);
                        return;   // the newline ends the line as usual
                    }
                    b.append('\n');
                    newline();
                    continue;
                }
                if (c == '\\' && pos + 1 < len) {
                    char e = s.charAt(pos + 1);
                    if (e == '\n' || e == '\r') {     // an escaped newline: continues the string
                        pos++;
                        if (raw) b.append('\\').append('\n');
                        newline();
                        continue;
                    }
                    pos += 2;
                    if (raw) {
                        b.append('\\').append(e);
                        continue;
                    }
                    switch (e) {
                        case 'n' -> b.append('\n');
                        case 't' -> b.append('\t');
                        case 'r' -> b.append('\r');
                        case '0' -> b.append('\0');
                        case '\\', '\'', '"' -> b.append(e);
                        default -> b.append('\\').append(e);
                    }
                    continue;
                }
                b.append(c);
                pos++;
            }
            t.add(prefix.indexOf('f') >= 0 ? FSTR : STR, b.toString(), ln, start, pos);
        }

        private void number() {
            int start = pos;
            if (s.charAt(pos) == '0' && pos + 1 < len && "xXoObB".indexOf(s.charAt(pos + 1)) >= 0) {
                char r = Character.toLowerCase(s.charAt(pos + 1));
                pos += 2;
                int ds = pos;
                while (pos < len && (Character.isLetterOrDigit(s.charAt(pos)) || s.charAt(pos) == '_')) pos++;
                String digits = s.substring(ds, pos).replace("_", "");
                try {
                    t.add(NUM, Long.parseLong(digits, r == 'x' ? 16 : r == 'o' ? 8 : 2), line, start, pos);
                } catch (NumberFormatException e) {
                    t.add(ERR, "bad number '" + s.substring(start, Math.min(pos, start + 30)) + "'", line, start, pos);
                }
                return;
            }
            boolean isFloat = false;
            digits();
            if (pos < len && s.charAt(pos) == '.') {
                isFloat = true;
                pos++;
                digits();
            }
            if (pos < len && (s.charAt(pos) == 'e' || s.charAt(pos) == 'E')) {
                int save = pos;
                pos++;
                if (pos < len && (s.charAt(pos) == '+' || s.charAt(pos) == '-')) pos++;
                if (pos < len && Character.isDigit(s.charAt(pos))) {
                    isFloat = true;
                    digits();
                } else {
                    pos = save;
                }
            }
            String text = s.substring(start, pos).replace("_", "");
            if (pos < len && (s.charAt(pos) == 'j' || s.charAt(pos) == 'J')) {
                pos++;
                t.add(ERR, "complex number", line, start, pos);
                return;
            }
            try {
                if (isFloat) {
                    double d = Double.parseDouble(text);
                    if (Double.isInfinite(d)) t.add(ERR, "float out of range", line, start, pos);
                    else t.add(NUM, d, line, start, pos);
                } else {
                    t.add(NUM, Long.parseLong(text), line, start, pos);
                }
            } catch (NumberFormatException e) {
                t.add(ERR, "number out of range: " + (text.length() > 30 ? text.substring(0, 30) + "..." : text),
                        line, start, pos);
            }
        }

        private void digits() {
            while (pos < len && (Character.isDigit(s.charAt(pos)) || s.charAt(pos) == '_')) pos++;
        }

        private static final String[] OPS3 = {"**=", "//=", ">>=", "<<=", "..."};
        private static final String[] OPS2 = {"**", "//", "==", "!=", "<=", ">=", "->", ":=", "+=", "-=", "*=", "/=",
                "%=", "&=", "|=", "^=", "@=", ">>", "<<"};

        private void op(char c) {
            int start = pos;
            for (String o : OPS3) if (s.startsWith(o, pos)) { pos += 3; t.add(OP, o, line, start, pos); return; }
            for (String o : OPS2) if (s.startsWith(o, pos)) { pos += 2; t.add(OP, o, line, start, pos); return; }
            pos++;
            if (c == '(' || c == '[' || c == '{') depth++;
            else if ((c == ')' || c == ']' || c == '}') && depth > 0) depth--;
            if (Character.isHighSurrogate(c) && pos < len && Character.isLowSurrogate(s.charAt(pos))) pos++;
            t.add(OP, s.substring(start, pos), line, start, pos);
        }

        /** Pairs each opening bracket with its closing one (any kind); unmatched ones get -1. */
        private void matchBrackets() {
            int[] m = new int[t.n];
            java.util.Arrays.fill(m, -1);
            int[] stack = new int[16];
            int sp = 0;
            for (int i = 0; i < t.n; i++) {
                if (t.opener(i)) {
                    if (sp == stack.length) stack = java.util.Arrays.copyOf(stack, sp * 2);
                    stack[sp++] = i;
                } else if (t.closer(i) && sp > 0) {
                    int o = stack[--sp];
                    m[o] = i;
                    m[i] = o;
                }
            }
            t.match = m;
        }
    }

    /** Why an expression could not be evaluated; {@code at} is the token index (for the line number). */
    static final class Bad extends RuntimeException {
        final int at;

        Bad(String message, int at) {
            super(message, null, false, false);
            this.at = at;
        }
    }

    /** Evaluates statements and expressions over a token range; recursive descent, depth-bounded. */
    static final class Evaluator {
        private final Tokens t;
        private final Map<String, Object> g;
        private final Warnings w;
        private final Deque<String> path = new ArrayDeque<>();
        private int pos, end, depth;

        Evaluator(Tokens t, Map<String, Object> g, Warnings w) {
            this.t = t;
            this.g = g;
            this.w = w;
        }

        void statement(int start, int stop) {
            pos = start;
            end = stop;
            depth = 0;
            path.clear();
            int ln = t.line[start];
            if (stop - start == 1 && (t.kind[start] == STR || t.kind[start] == FSTR)) return;   // a docstring
            if (!(stop - start >= 3 && t.kind[start] == NAME && t.isOp(start + 1, "=") && !keyword(start))) {
                w.add("line " + ln + ": skipped '" + t.text(start, stop) + "' (not a name = value assignment)");
                return;
            }
            String name = (String) t.val[start];
            if (t.kind[start + 2] == NAME && t.isOp(start + 3, "=")) {
                w.add("line " + ln + ": skipped '" + t.text(start, stop) + "' (chained assignment)");
                g.remove(name);
                return;
            }
            pos = start + 2;
            path.addLast(name);
            try {
                Object v = expr();
                if (pos < end) throw new Bad("unexpected '" + t.text(pos, pos + 1) + "'", pos);
                g.put(name, v);
            } catch (Bad b) {
                g.remove(name);
                w.add("line " + lineOf(b.at) + ": " + name + " not evaluated: " + b.getMessage());
            }
        }

        private boolean keyword(int i) {
            String v = (String) t.val[i];
            return switch (v) {
                case "True", "False", "None", "if", "else", "for", "while", "def", "class", "import", "from",
                     "return", "lambda", "with", "try", "except", "finally", "global", "del", "pass", "raise",
                     "assert", "yield", "in", "is", "not", "and", "or", "async", "await", "elif", "break",
                     "continue", "nonlocal" -> true;
                default -> false;
            };
        }

        private int lineOf(int at) { return t.line[Math.max(0, Math.min(at, t.n - 1))]; }

        private Bad bad(String why) { return new Bad(why, pos); }

        private void enter() {
            if (++depth > MAX_DEPTH) throw bad("nested more than " + MAX_DEPTH + " deep");
        }

        private boolean at(String op) { return pos < end && t.isOp(pos, op); }

        // expr := term (('+' | '-') term)*
        Object expr() {
            Object v = term();
            while (at("+") || at("-")) {
                boolean plus = at("+");
                int opAt = pos++;
                Object r = term();
                v = plus ? add(v, r, opAt) : arith('-', v, r, opAt);
            }
            return v;
        }

        // term := unary (('*' | '/' | '//') unary)*
        private Object term() {
            Object v = unary();
            while (at("*") || at("/") || at("//")) {
                char op = at("*") ? '*' : at("/") ? '/' : 'f';
                int opAt = pos++;
                v = arith(op, v, unary(), opAt);
            }
            return v;
        }

        // unary := ('+' | '-') unary | power
        private Object unary() {
            if (at("-") || at("+")) {
                boolean minus = at("-");
                int opAt = pos++;
                enter();
                Object v = unary();
                depth--;
                if (!(v instanceof Long) && !(v instanceof Double)) throw new Bad("unary minus of " + show(v), opAt);
                if (!minus) return v;
                if (v instanceof Long l) {
                    if (l == Long.MIN_VALUE) throw new Bad("integer overflow", opAt);
                    return -l;
                }
                return -(Double) v;
            }
            return power();
        }

        // power := atom ('**' unary)?     (right-associative; binds tighter than a unary minus on its left)
        private Object power() {
            Object base = atom();
            if (at("**")) {
                int opAt = pos++;
                enter();
                Object exp = unary();
                depth--;
                return arith('^', base, exp, opAt);
            }
            return base;
        }

        /** Python {@code +}: numbers, or two strings, or two lists/tuples. */
        private Object add(Object a, Object b, int at) {
            if (a instanceof String x && b instanceof String y) return x + y;
            if (a instanceof List<?> x && b instanceof List<?> y) {
                List<Object> l = new ArrayList<>(x);
                l.addAll(y);
                return Collections.unmodifiableList(l);
            }
            return arith('+', a, b, at);
        }

        /**
         * Numeric {@code + - * / // **} ({@code f} is floor division, {@code ^} power) with Python's rules: int op int
         * stays an int except for {@code /} and a negative power; any float makes a float. Refused: non-numbers
         * (Python's True + 1 included), division by zero, integers beyond 64 bits, non-finite or complex results.
         */
        private Object arith(char op, Object a, Object b, int at) {
            if (!(a instanceof Long || a instanceof Double) || !(b instanceof Long || b instanceof Double))
                throw new Bad("'" + (op == 'f' ? "//" : op == '^' ? "**" : String.valueOf(op)) + "' of " + show(a)
                        + " and " + show(b), at);
            try {
                if (a instanceof Long x && b instanceof Long y) {
                    switch (op) {
                        case '+': return Math.addExact(x, y);
                        case '-': return Math.subtractExact(x, y);
                        case '*': return Math.multiplyExact(x, y);
                        case 'f':
                            if (y == 0) throw new Bad("integer division by zero", at);
                            if (x == Long.MIN_VALUE && y == -1) throw new Bad("integer overflow", at);
                            return Math.floorDiv(x, y);
                        case '^':
                            if (y >= 0) return pow(x, y, at);
                            break;   // a negative power is a float
                        default:
                            break;
                    }
                }
            } catch (ArithmeticException e) {
                throw new Bad("integer overflow (beyond 64 bits)", at);
            }
            double x = ((Number) a).doubleValue(), y = ((Number) b).doubleValue();
            double r;
            switch (op) {
                case '+' -> r = x + y;
                case '-' -> r = x - y;
                case '*' -> r = x * y;
                case '/' -> {
                    if (y == 0) throw new Bad("division by zero", at);
                    r = x / y;
                }
                case 'f' -> {
                    if (y == 0) throw new Bad("division by zero", at);
                    r = floorDiv(x, y);
                }
                default -> {
                    if (x == 0 && y < 0) throw new Bad("0 to a negative power", at);
                    if (x < 0 && y != Math.rint(y)) throw new Bad("complex result", at);
                    r = Math.pow(x, y);
                }
            }
            if (!Double.isFinite(r)) throw new Bad("float overflow", at);
            return r;
        }

        /**
         * Python's float floor division (CPython floatobject.c, _float_div_mod): the floor of the exact quotient,
         * which is not floor(x / y) after rounding: 2 // 0.001 is 1999.0, because 0.001 is a little above 1/1000.
         */
        static double floorDiv(double x, double y) {
            double mod = x % y;   // C fmod
            double div = (x - mod) / y;
            if (mod != 0 && ((y < 0) != (mod < 0))) div -= 1.0;
            if (div == 0) return Math.copySign(0.0, x / y);
            double f = Math.floor(div);
            return div - f > 0.5 ? f + 1.0 : f;
        }

        /** x**y for y >= 0, exactly, by squaring (O(log y)); overflow throws ArithmeticException. */
        private static long pow(long x, long y, int at) {
            if (x == 0) return y == 0 ? 1 : 0;
            if (x == 1) return 1;
            if (x == -1) return (y & 1) == 0 ? 1 : -1;
            if (y >= 64) throw new ArithmeticException();
            long r = 1, b = x;
            long e = y;
            while (true) {
                if ((e & 1) != 0) r = Math.multiplyExact(r, b);
                e >>= 1;
                if (e == 0) return r;
                b = Math.multiplyExact(b, b);
            }
        }

        private Object atom() {
            if (pos >= end) throw bad("expression ends early");
            int i = pos;
            switch (t.kind[i]) {
                case NUM -> {
                    pos++;
                    return postfix(t.val[i]);
                }
                case STR -> {
                    StringBuilder b = new StringBuilder((String) t.val[i]);
                    pos++;
                    while (pos < end && (t.kind[pos] == STR || t.kind[pos] == FSTR)) {
                        if (t.kind[pos] == FSTR) throw bad("f-string not evaluated");
                        b.append((String) t.val[pos++]);
                    }
                    return postfix(b.toString());
                }
                case FSTR -> throw bad("f-string not evaluated");
                case ERR -> throw bad((String) t.val[i]);
                case NAME -> {
                    String n = (String) t.val[i];
                    pos++;
                    switch (n) {
                        case "True": return postfix(Boolean.TRUE);
                        case "False": return postfix(Boolean.FALSE);
                        case "None": return postfix(PyNone.NONE);
                        case "dict":
                            if (at("(")) return postfix(dictCall());
                            break;
                        default:
                            break;
                    }
                    if (!isConstantName(n)) {
                        if (at("(")) throw new Bad("call " + n + "(...) not evaluated", i);
                        if (at("[")) throw new Bad("subscript " + n + "[...] not evaluated", i);
                        if (at(".")) throw new Bad("attribute access " + n + ".x not evaluated", i);
                        throw new Bad("name '" + n + "' is not an upper-case constant (only those are evaluated)", i);
                    }
                    if (!g.containsKey(n)) throw new Bad("constant '" + n + "' is not defined before this line", i);
                    return postfix(g.get(n));
                }
                default -> {
                    if (at("(")) return postfix(parens());
                    if (at("[")) return postfix(list());
                    if (at("{")) return postfix(braceDict());
                    throw bad("unexpected '" + t.text(i, i + 1) + "'");
                }
            }
        }

        /** Calls, subscripts and attributes of a value are not evaluated. */
        private Object postfix(Object v) {
            if (at("(")) throw bad("call not evaluated");
            if (at("[")) throw bad("subscript not evaluated");
            if (at(".")) throw bad("attribute access not evaluated");
            return v;
        }

        static boolean isConstantName(String n) {
            boolean letter = false;
            for (int k = 0; k < n.length(); k++) {
                char c = n.charAt(k);
                if (c >= 'A' && c <= 'Z') letter = true;
                else if (!(c == '_' || (c >= '0' && c <= '9'))) return false;
            }
            return letter;
        }

        /** The index of the bracket closing the one at {@code pos}, inside this statement. */
        private int closing() {
            int c = t.match[pos];
            if (c < 0 || c >= end) throw bad("'" + t.val[pos] + "' is never closed");
            return c;
        }

        // '(' ')' | '(' expr ')' | '(' expr ',' [expr (',' expr)* [',']] ')'
        private Object parens() {
            int close = closing();
            if (!t.isOp(close, ")")) throw bad("'(' closed by '" + t.val[close] + "'");
            pos++;
            enter();
            if (pos == close) {
                pos++;
                depth--;
                return List.of();
            }
            Object first = expr();
            if (pos == close) {
                pos++;
                depth--;
                return first;
            }
            List<Object> items = new ArrayList<>();
            items.add(first);
            items(items, close);
            depth--;
            return Collections.unmodifiableList(items);
        }

        private Object list() {
            int close = closing();
            if (!t.isOp(close, "]")) throw bad("'[' closed by '" + t.val[close] + "'");
            pos++;
            enter();
            List<Object> items = new ArrayList<>();
            if (pos < close) {
                items.add(expr());
                items(items, close);
            } else {
                pos++;
            }
            depth--;
            return Collections.unmodifiableList(items);
        }

        /** After a first item: (',' expr)* [','] up to and past {@code close}. */
        private void items(List<Object> items, int close) {
            while (true) {
                if (pos == close) {
                    pos++;
                    return;
                }
                if (!at(",")) throw bad("expected ',' or '" + t.val[close] + "', got '" + t.text(pos, pos + 1) + "'");
                pos++;
                if (pos == close) continue;
                items.add(expr());
            }
        }

        // dict '(' [NAME '=' expr (',' NAME '=' expr)* [',']] ')'
        private Map<String, Object> dictCall() {
            int close = closing();
            if (!t.isOp(close, ")")) throw bad("'(' closed by '" + t.val[close] + "'");
            return entries(close, "=", () -> {
                if (t.kind[pos] != NAME || !t.isOp(pos + 1, "=") || keyword(pos))
                    throw bad("expected key=value, got '" + t.text(pos, pos + 1) + "'");
                return (String) t.val[pos++];
            });
        }

        // '{' [expr ':' expr (',' expr ':' expr)* [',']] '}'
        private Map<String, Object> braceDict() {
            int close = closing();
            if (!t.isOp(close, "}")) throw bad("'{' closed by '" + t.val[close] + "'");
            return entries(close, ":", () -> {
                int at = pos;
                Object k = expr();
                if (!(k instanceof String) && !(k instanceof Long) && !(k instanceof Boolean))
                    throw new Bad("dict key " + show(k) + " not supported", at);
                return String.valueOf(k instanceof Boolean b ? (b ? "True" : "False") : k);
            });
        }

        /**
         * The entries of a dict whose opening bracket is at {@code pos} and closing one at {@code close}: each is a
         * key read by {@code key}, then {@code separator}, then a value. An entry that fails is reported, kept as
         * {@link Skipped#SKIPPED} when its key was read, and the rest of the dict is still read.
         */
        private Map<String, Object> entries(int close, String separator, Supplier<String> key) {
            pos++;
            enter();
            Map<String, Object> m = new LinkedHashMap<>();
            while (pos < close) {
                int entry = pos, level = path.size(), savedDepth = depth;
                String k = null;
                try {
                    k = key.get();
                    if (!at(separator)) throw bad("expected '" + separator + "' after a dict key");
                    pos++;
                    path.addLast(k);
                    Object v = expr();
                    if (pos != close && !at(",")) throw bad("unexpected '" + t.text(pos, pos + 1) + "'");
                    m.put(k, v);
                    path.removeLast();
                } catch (Bad b) {
                    entryFailed(b, k, entry, close, level, savedDepth);
                    if (k != null) m.put(k, Skipped.SKIPPED);
                }
                if (at(",")) pos++;
            }
            pos = close + 1;
            depth--;
            return m;
        }

        /**
         * Reports a dict entry that could not be evaluated and moves past it: to the next ',' or the closing bracket
         * at the dict's own level, jumping over nested brackets by their partners (so each token is skipped at most
         * once). {@code level} and {@code savedDepth} are the key path's size and the nesting depth at the entry.
         */
        private void entryFailed(Bad b, String key, int entry, int close, int level, int savedDepth) {
            while (path.size() > level) path.removeLast();
            depth = savedDepth;
            String where = String.join(".", path) + (key != null ? "." + key : "");
            w.add("line " + lineOf(b.at) + ": " + where + " skipped: " + b.getMessage());
            int i = entry;
            while (i < close) {
                if (t.opener(i)) {
                    int m = t.match[i];
                    if (m < 0 || m > close) {
                        i = close;
                        break;
                    }
                    i = m + 1;
                } else if (t.isOp(i, ",")) {
                    break;
                } else {
                    i++;
                }
            }
            pos = i;
        }
    }
}
