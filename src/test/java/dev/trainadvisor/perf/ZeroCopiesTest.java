package dev.trainadvisor.perf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/**
 * FSDP2 copies its buffers around every ZeRO-3 collective on the compute stream (knowledge-base/frameworks/pytorch.json
 * and torchtitan.json, zero 3 copies); FSDP1 runs its collectives on its flat parameter in place. The rates are worked
 * out again here from the H100 measurement's rows, the bytes by hand from the model's shape.
 */
class ZeroCopiesTest {

    /** The mean rate of the measurement's fsdp2 rows whose {@code what} starts with {@code what}, over 3,350 GB/s. */
    static double shareOfHbm(String what) throws IOException {
        JsonNode m = new ObjectMapper().readTree(Path.of("knowledge-base/measurements/h100-nvlink-interference.json").toFile());
        double sum = 0;
        int n = 0;
        for (JsonNode r : m.get("rows")) {
            if (!r.path("part").asText().equals("fsdp2") || !r.path("what").asText().startsWith(what)) continue;
            // bytes read and written over the time: what the row's gbps says
            assertEquals(r.get("bytes_read_plus_written").asDouble() / r.get("ms").asDouble() / 1e6, r.get("gbps").asDouble(), 1e-6);
            sum += r.get("gbps").asDouble();
            n++;
        }
        assertEquals(2, n, what);   // one layer of OLMo 2 13B, one of Llama 2 7B
        return sum / n / 3350;      // the H100 SXM's datasheet HBM rate (knowledge-base/gpus.json)
    }

    @Test
    void theModelsRatesAreTheMeasuredOnes() throws IOException {
        assertEquals(shareOfHbm("all-gather copy-out"), DataParallel.COPY_OUT_OF_HBM, 1e-4);
        assertEquals(shareOfHbm("reduce-scatter copy-in, reduce_dtype fp32"), DataParallel.COPY_IN_CAST_OF_HBM, 1e-4);
        assertEquals(shareOfHbm("reduce-scatter copy-in, reduce_dtype bf16"), DataParallel.COPY_IN_OF_HBM, 1e-4);
    }

    static RunSpec run(Path dir, String version, String reduce, String everyMicroBatch) throws IOException {
        Path f = dir.resolve("fsdp-" + version + "-" + reduce + ".yaml");
        Files.writeString(f, String.join("\n",
                "name: zero-copies",
                "cluster: {gpu: H100-SXM5-80GB, nodes: 1, gpus_per_node: 8, intra_node: {link: NVLink4}}",
                "model: {name: m13b, layers: 40, hidden: 5120, heads: 40, ffn_hidden: 13824, vocab: 100352, gated_mlp: true,",
                "        tied_embeddings: false, qkv_bias: false, norm: rmsnorm, position_embedding: rope}",
                "parallel: {dp: 8, zero_stage: 3" + (everyMicroBatch == null ? "" : ", grad_reduce_every_micro_batch: "
                        + everyMicroBatch) + "}",
                "training: {seq_len: 4096, micro_batch_size: 1, micro_batches: 16, precision: bf16, framework: pytorch,",
                "           framework_version: " + version + ", grad_reduce_precision: " + reduce + ", attention_kernel: fa2}", ""));
        return new SpecReader().read(f);
    }

    static double copies(StepPrediction p) {
        return p.phases().stream().filter(ph -> ph.name().equals(Phase.ZERO_COPIES)).mapToDouble(Phase::seconds).sum();
    }

    @Test
    void fsdp2CopiesEveryGatheredParameterOutAndEveryGradientInAtEveryMicroBatch(@TempDir Path dir) throws IOException {
        // OLMo 2 13B's shape: 40 layers of q, k, v, o (h x h each, no GQA), a SwiGLU MLP (3 h x ffn) and two RMSNorms,
        // untied embedding and output head (V x h each), the final norm
        double h = 5120, ffn = 13824, v = 100352;
        double psi = 40 * (4 * h * h + 3 * h * ffn + 2 * h) + 2 * v * h + h;
        RunSpec s = run(dir, "fsdp2", "fp32", null);
        // the model's own count of the parameters agrees (one stage, no tensor parallelism: every one on each GPU)
        assertEquals(psi, Params.total(s.run().model()), 1e-6 * psi);
        double hbm = 3350e9;
        // 16 micro-batches; each gathers every layer twice (forward, and again before the backward: reshard after
        // forward), its bf16 buffer copied out, read and written; each reduce-scatters the bf16 gradients cast into an
        // fp32 input, 2 bytes read and 4 written
        double out = 16 * 2 * 2 * psi * 2 / (hbm * shareOfHbm("all-gather copy-out"));
        double in = 16 * psi * (2 + 4) / (hbm * shareOfHbm("reduce-scatter copy-in, reduce_dtype fp32"));
        StepPrediction fsdp2 = StepModel.predict(s.cluster(), s.run());
        assertEquals(out + in, copies(fsdp2), 1e-3 * (out + in));
        // about a tenth of the step for a 13B model at one sequence of 4096 tokens a micro-batch
        assertTrue(copies(fsdp2) > 0.05 * fsdp2.stepTimeS() && copies(fsdp2) < 0.2 * fsdp2.stepTimeS());

        // FSDP1 runs the same collectives on its flat parameter: the same step without the copies
        RunSpec one = run(dir, "fsdp1", "fp32", null);
        StepPrediction fsdp1 = StepModel.predict(one.cluster(), one.run());
        assertEquals(0, copies(fsdp1));
        assertEquals(fsdp2.stepTimeS() - copies(fsdp2), fsdp1.stepTimeS(), 1e-9 * fsdp1.stepTimeS());

        // reduced in bf16, the copy-in moves 2 + 2 bytes at the rate of an uncast copy
        RunSpec bf16 = run(dir, "fsdp2", "bf16", null);
        double inBf16 = 16 * psi * (2 + 2) / (hbm * shareOfHbm("reduce-scatter copy-in, reduce_dtype bf16"));
        assertEquals(out + inBf16, copies(StepModel.predict(bf16.cluster(), bf16.run())), 1e-3 * (out + inBf16));

        // gradients synced on the last micro-batch only: one copy-in a step
        RunSpec last = run(dir, "fsdp2", "fp32", "false");
        assertEquals(out + in / 16, copies(StepModel.predict(last.cluster(), last.run())), 1e-3 * (out + in / 16));
    }
}
