package dev.trainadvisor.report;

import com.fasterxml.jackson.databind.JsonNode;

import static dev.trainadvisor.facts.Fmt.num;

/** The run's cluster, model and layout in one line each, as every report heads a run (read from the advice's run). */
record RunHeader(String cluster, String model, String layout) {

    static RunHeader of(JsonNode run) {
        JsonNode c = run.path("cluster");
        int nodes = c.path("nodes").asInt();
        StringBuilder cl = new StringBuilder().append(nodes).append(nodes == 1 ? " node x " : " nodes x ")
                .append(c.path("gpus_per_node").asInt()).append(" ").append(gpuName(c.path("gpu"))).append(", intra-node ")
                .append(intra(c.path("intra_node")));
        if (c.has("inter_node")) cl.append(", inter-node ").append(c.path("inter_node").path("nics_per_node").asInt())
                .append(" x ").append(c.path("inter_node").path("link").asText());
        JsonNode m = run.path("model"), p = run.path("parallel"), t = run.path("training");
        String model = m.path("name").asText() + " (" + m.path("layers").asInt() + " layers, hidden " + m.path("hidden").asInt() + ")";
        StringBuilder layout = new StringBuilder("tp ").append(p.path("tp").asInt()).append(", pp ").append(p.path("pp").asInt());
        if (p.path("cp").asInt(1) > 1) layout.append(", cp ").append(p.path("cp").asInt());
        if (p.path("ep").asInt(1) > 1) layout.append(", ep ").append(p.path("ep").asInt());
        layout.append(", dp ").append(p.path("dp").asInt());
        // an order the run gave (else its framework's, which the Framework line names)
        if (p.has("rank_order")) layout.append(" (ranks ").append(p.path("rank_order").asText()).append(")");
        layout.append(", ZeRO ").append(p.path("zero_stage").asInt())
                .append(" over ").append(p.path("zero_group_size").asInt()).append("; seq ").append(t.path("seq_len").asInt())
                .append(", micro-batch ").append(t.path("micro_batch_size").asInt()).append(" x ")
                .append(t.path("micro_batches").asInt()).append(", recompute ").append(t.path("recompute").asText());
        return new RunHeader(cl.toString(), model, layout.toString());
    }

    static String intra(JsonNode intra) {
        StringBuilder s = new StringBuilder(intra.path("link").asText("none"));
        if (intra.has("sockets")) s.append(", ").append(intra.path("sockets").asInt()).append(" sockets");
        if (intra.has("transport")) s.append(", ").append(intra.path("transport").asText());
        if (intra.has("busbw_gbps")) s.append(" (").append(num(intra.path("busbw_gbps").asDouble())).append(" GB/s measured)");
        return s.toString();
    }

    static String gpuName(JsonNode gpu) { return gpu.isTextual() ? gpu.asText() : gpu.path("key").asText(); }

    /** The number of GPUs the run uses. */
    static int gpus(JsonNode run) {
        JsonNode c = run.path("cluster");
        return c.path("nodes").asInt() * c.path("gpus_per_node").asInt();
    }
}
