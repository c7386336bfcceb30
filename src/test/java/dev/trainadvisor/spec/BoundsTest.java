package dev.trainadvisor.spec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.input.SpecException;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Sizes are bounded before anything loops over them or multiplies them: one past a bound is refused naming the file,
 * the field and the allowed range; a run with every size at its bound is read.
 */
public class BoundsTest {
    static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Every size at its bound, and consistent: 1024 nodes of 1024 GPUs (2^20), tp 1024 x pp 1024 (dp 1); 10,000
     * layers of hidden 2^20, 2^16 heads of 16 (head_dim 16 = 2^20 / 2^16), ffn 2^22, vocab 2^24; seq 2^24, micro-batch
     * 2^16, 2^16 micro-batches; 2^20 experts with top_k 2^20 and ep 1024 (ep x etp = 1024 x 1 divides tp x cp x dp).
     */
    public static ObjectNode largest() {
        try {
            return (ObjectNode) JSON.readTree("""
                    {"cluster": {"gpu": {"peak_tflops": {"bf16": 1000}, "hbm_gb": 80, "hbm_gbps": 3000, "sms": 65536},
                                 "nodes": 1024, "gpus_per_node": 1024, "nvlink_domain": 1048576,
                                 "intra_node": {"link": "NVLink4"}, "inter_node": {"link": "IB-NDR", "nics_per_node": 65536}},
                     "model": {"layers": 10000, "hidden": 1048576, "heads": 65536, "kv_heads": 65536, "head_dim": 65536,
                               "ffn_hidden": 4194304, "vocab": 16777216,
                               "moe": {"experts": 1048576, "top_k": 1048576, "ffn_hidden": 4194304, "every": 10000,
                                       "shared_experts": 1048576, "shared_ffn_hidden": 4194304}},
                     "parallel": {"tp": 1024, "pp": 1024, "dp": 1, "cp": 1, "ep": 1024, "etp": 1, "virtual_stages": 1},
                     "training": {"seq_len": 16777216, "micro_batch_size": 65536, "micro_batches": 65536}}
                    """);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Each bounded field, where it sits, and its bound. */
    static final Map<String, Integer> BOUNDED = Map.ofEntries(
            Map.entry("cluster.nodes", Bounds.GPUS), Map.entry("cluster.gpus_per_node", Bounds.GPUS_PER_NODE),
            Map.entry("cluster.nvlink_domain", Bounds.GPUS), Map.entry("cluster.gpu.sms", Bounds.SMALL_COUNT),
            Map.entry("cluster.inter_node.nics_per_node", Bounds.SMALL_COUNT),
            Map.entry("model.layers", Bounds.LAYERS), Map.entry("model.hidden", Bounds.HIDDEN),
            Map.entry("model.heads", Bounds.HEADS), Map.entry("model.kv_heads", Bounds.HEADS),
            Map.entry("model.head_dim", Bounds.HEADS), Map.entry("model.ffn_hidden", Bounds.FFN_HIDDEN),
            Map.entry("model.vocab", Bounds.VOCAB), Map.entry("model.moe.experts", Bounds.EXPERTS),
            Map.entry("model.moe.top_k", Bounds.EXPERTS), Map.entry("model.moe.ffn_hidden", Bounds.FFN_HIDDEN),
            Map.entry("model.moe.every", Bounds.LAYERS), Map.entry("model.moe.shared_ffn_hidden", Bounds.FFN_HIDDEN),
            Map.entry("training.seq_len", Bounds.SEQ_LEN), Map.entry("training.micro_batch_size", Bounds.MICRO_BATCH_SIZE),
            Map.entry("training.micro_batches", Bounds.MICRO_BATCHES), Map.entry("parallel.tp", Bounds.GPUS),
            Map.entry("parallel.pp", Bounds.GPUS), Map.entry("parallel.dp", Bounds.GPUS), Map.entry("parallel.cp", Bounds.GPUS),
            Map.entry("parallel.ep", Bounds.GPUS), Map.entry("parallel.etp", Bounds.GPUS),
            Map.entry("parallel.virtual_stages", Bounds.VIRTUAL_STAGES));

    static ObjectNode with(String dotted, JsonNode value) {
        ObjectNode t = largest();
        JsonTrees.put(t, dotted, value);
        return t;
    }

    @Test
    void everySizeAtItsBoundIsRead() {
        RunSpec s = new SpecReader().read(largest(), "largest.json");
        assertEquals(1 << 20, s.cluster().gpus());
        assertEquals(10_000, s.run().model().layers());
        assertEquals(1 << 24, s.run().training().seqLen());
        assertEquals(1 << 20, s.run().model().moe().experts());
        // the tree holds each size at its bound (so the test below moves exactly one past it), but for the degrees
        // and nodes, whose products with the others are bounded too
        for (Map.Entry<String, Integer> e : BOUNDED.entrySet()) {
            if (e.getKey().startsWith("parallel.") || e.getKey().equals("cluster.nodes")) continue;
            assertEquals(e.getValue().intValue(), JsonTrees.at(largest(), e.getKey()).asInt(), e.getKey());
        }
    }

    @Test
    void onePastEachBoundIsRefusedNamingFileFieldAndRange() {
        for (Map.Entry<String, Integer> e : BOUNDED.entrySet()) {
            long past = e.getValue() + 1L;
            SpecException x = assertThrows(SpecException.class,
                    () -> new SpecReader().read(with(e.getKey(), JSON.getNodeFactory().numberNode(past)), "big.yaml"),
                    e.getKey());
            String m = x.getMessage();
            assertTrue(m.startsWith("big.yaml: field '" + e.getKey() + "': a positive integer (1 to " + e.getValue() + "), got "
                    + past), m);
        }
    }

    @Test
    void theIssuesModelIsRefusedAtOnce() {
        // "An inline model with layers: 2147483647 hangs in a per-layer loop inside the fit."
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            SpecException x = assertThrows(SpecException.class, () -> new SpecReader().read(
                    with("model.layers", JSON.getNodeFactory().numberNode(Integer.MAX_VALUE)), "issue.yaml"));
            assertEquals("issue.yaml: field 'model.layers': a positive integer (1 to 10000), got 2147483647", x.getMessage());
        });
    }

    @Test
    void integersBeyondALongDoNotWrap() {
        // 2^64 + 5 would read as 5 if cut to a long; 1e30 as a float is no integer a run can have either
        for (JsonNode v : List.of(JSON.getNodeFactory().numberNode(BigInteger.TWO.pow(64).add(BigInteger.valueOf(5))),
                JSON.getNodeFactory().numberNode(1e30), JSON.getNodeFactory().numberNode(-0.0 - 4))) {
            SpecException x = assertThrows(SpecException.class, () -> new SpecReader().read(with("model.layers", v), "w.json"),
                    v.toString());
            assertTrue(x.getMessage().contains("'model.layers': a positive integer (1 to 10000), got"), x.getMessage());
        }
    }

    @Test
    void productsOfBoundedDegreesAreFormedInLong() {
        // tp x pp x cp = 2^20 x 2^20 x 2^20 wraps an int to 0 and a long does not: "to divide", not a division by zero
        ObjectNode t = largest();
        ObjectNode p = (ObjectNode) t.get("parallel");
        p.removeAll();
        p.put("tp", 1 << 20).put("pp", 1 << 20).put("cp", 1 << 20);
        SpecException x = assertThrows(SpecException.class, () -> new SpecReader().read(t, "p.json"));
        assertTrue(x.getMessage().contains("'parallel.tp': tp*pp*cp (1048576*1048576*1048576=1152921504606846976) to divide"),
                x.getMessage());
        // pp x virtual_stages = 2^20 x 2^12 = 2^32 wraps an int to 0, below the 10,000 layers; in long it is far above
        p.removeAll();
        p.put("tp", 1).put("pp", 1 << 20).put("virtual_stages", 4096);
        x = assertThrows(SpecException.class, () -> new SpecReader().read(t, "p.json"));
        assertTrue(x.getMessage().contains("'parallel.pp'") && x.getMessage().contains("1048576*4096"), x.getMessage());
        // nodes x gpus_per_node beyond 2^20 GPUs
        ObjectNode c = (ObjectNode) t.get("cluster");
        c.put("nodes", 1 << 20).put("gpus_per_node", 2);
        x = assertThrows(SpecException.class, () -> new SpecReader().read(t, "c.json"));
        assertTrue(x.getMessage().contains("'cluster.nodes': nodes x gpus_per_node at most 1048576 GPUs, got 1048576 x 2"),
                x.getMessage());
    }
}
