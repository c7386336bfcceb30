package dev.trainadvisor.spec;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How a framework numbers its ranks: which parallel dimension runs fastest through consecutive ranks, and so which
 * groups a node's consecutive GPUs hold ({@code parallel.rank_order}, else the framework profile's {@code rank_order}).
 * Tensor parallelism is innermost and context parallelism next in every framework read here; they differ in whether
 * the pipeline stages or the data-parallel replicas are outermost. Written innermost first, as Megatron-LM writes its
 * {@code order} ("tp-cp-ep-dp-pp"): Megatron's expert dimension belongs to the expert layers' own grid, folded over the
 * stage's ranks (perf.ExpertParallel), and is read past.
 */
public enum RankOrder {
    /**
     * Data-parallel replicas inside each pipeline stage, stages outermost: a stage's tp x cp x dp ranks are consecutive,
     * so the gradient reduction stays on the nodes of one stage and the pipeline's sends cross between them.
     * Megatron-LM's default ({@code order='tp-cp-ep-dp-pp'}, megatron/training/initialize.py), DeepSpeed's
     * PipeModelDataParallelTopology (axes pipe, data, model), torchtitan's and nanotron's meshes (pp first), InternEvo.
     */
    PIPELINE_OUTERMOST("tp-cp-dp-pp"),
    /**
     * Pipeline stages inside each replica, replicas outermost: a replica's tp x cp x pp ranks are consecutive.
     * Megatron-LM's --use-tp-pp-dp-mapping ({@code 'tp-cp-ep-pp-dp'}) and InternLM's 2023 process groups.
     */
    DATA_OUTERMOST("tp-cp-pp-dp");

    private final String key;

    RankOrder(String key) { this.key = key; }

    /** Innermost first: "tp-cp-dp-pp". */
    public String key() { return key; }

    /** The keys, for messages. */
    public static List<String> keys() {
        List<String> out = new ArrayList<>();
        for (RankOrder o : values()) out.add(o.key);
        return out;
    }

    /** The order whose key is {@code s} exactly ("tp-cp-dp-pp"), as a run file writes it; null for any other. */
    public static RankOrder byKey(String s) {
        for (RankOrder o : values()) if (o.key.equals(s)) return o;
        return null;
    }

    /**
     * The order {@code s} writes, innermost first, as a framework spells it: its own dimensions among tp, cp, ep, dp and
     * pp, each once, tp first (Megatron's "tp-cp-ep-dp-pp"; "tp-dp-pp" without context parallelism); null for any
     * other, or an order these two do not cover.
     */
    public static RankOrder parse(String s) {
        if (s == null) return null;
        List<String> dims = new ArrayList<>();
        for (String d : s.trim().toLowerCase(Locale.ROOT).split("-", -1)) {
            if (!List.of("tp", "cp", "ep", "dp", "pp").contains(d) || dims.contains(d)) return null;
            dims.add(d);
        }
        dims.remove("ep");
        if (!dims.contains("cp") && dims.size() > 0 && dims.get(0).equals("tp")) dims.add(1, "cp");
        String normal = String.join("-", dims);
        for (RankOrder o : values()) if (o.key.equals(normal)) return o;
        return null;
    }
}
