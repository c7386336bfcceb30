package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.RunMetrics;
import dev.trainadvisor.spec.Training;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Roofline-style model of one optimizer step on one GPU: compute of every micro-batch on the
 * slowest pipeline stage, the pipeline bubble, the optimizer, and the exposed part of every
 * collective. Plain Java; knows nothing of rules.
 */
public final class StepModel {
    private StepModel() {}

    public static StepPrediction predict(Cluster cluster, RunMetrics run) {
        return predict(cluster, run, Efficiency.defaults(cluster.gpu(), run));
    }

    public static StepPrediction predict(Cluster cluster, RunMetrics run, Efficiency eff) {
        Model m = run.model();
        Parallel p = run.parallel();
        Training t = run.training();
        int mb = t.microBatches();

        FlopsPerToken flops = FlopsPerToken.of(m, t);
        ComputeTime compute = ComputeTime.of(m, p, t, cluster.gpu(), eff);
        StepContext context = StepContext.of(cluster, m, p, t);
        List<Collective> collectives = CommModel.of(ParallelDimension.SHIPPED, context, compute, eff);
        MemoryEstimate memory = MemoryModel.of(context.sharding(), cluster, m, p, t);

        double forward = mb * compute.forwardSeconds();
        double backward = mb * compute.backwardSeconds();
        // 1F1B bubble: (pp - 1) / (v * m) of the ideal time (Narayanan et al. 2021, section 2.2)
        double bubble = (p.pp() - 1.0) / p.virtualStages() * compute.microBatchSeconds();
        // offload (training.offload): the host runs its share of the optimizer; copies cross the host link
        Offloading.Cost offload = Offloading.of(context, compute, eff);
        double optimizer = optimizerSeconds(context, eff) * (1 - t.offload().hostOptimizerShare());

        List<Phase> phases = new ArrayList<>();
        phases.add(new Phase(Phase.FORWARD, forward, forward, null));
        phases.add(new Phase(Phase.BACKWARD, backward, backward, null));
        if (p.pp() > 1) phases.add(new Phase(Phase.PIPELINE_BUBBLE, bubble, bubble, null));
        phases.add(new Phase(Phase.OPTIMIZER, optimizer, optimizer, null));
        // what the framework spends around the optimizer step beyond Adam's HBM traffic (its profile's, measured)
        double framework = frameworkSeconds(context, eff);
        phases.add(new Phase(Phase.FRAMEWORK, framework, framework, null));
        double step = forward + backward + bubble + optimizer + framework;
        if (offload.hostOptimizerS() > 0) phases.add(new Phase(Phase.HOST_OPTIMIZER, offload.hostOptimizerS(),
                offload.hostOptimizerS(), "host"));
        if (offload.copiesInS() + offload.copiesHiddenS() > 0) phases.add(new Phase(Phase.OFFLOAD_COPIES,
                offload.copiesInS() + offload.copiesHiddenS(), offload.copiesInS(), "host-link"));
        if (offload.copiesOutS() > 0) phases.add(new Phase(Phase.OFFLOAD_UPDATE, offload.copiesOutS(), offload.copiesOutS(),
                "host-link"));
        step += offload.hostOptimizerS() + offload.copiesInS() + offload.copiesOutS();
        for (Collective c : collectives) {
            phases.add(new Phase(c.name(), c.seconds(), c.exposedSeconds(), c.link().linkKey()));
            step += c.exposedSeconds();
        }

        double tokensPerGpuStep = (double) t.tokensPerReplica() / p.modelParallel();
        double tokensPerGpuPerS = tokensPerGpuStep / step;
        double tflops = flops.model() * tokensPerGpuPerS / 1e12;
        double peak = cluster.gpu().peakTflops(Precision.BF16);
        List<String> notes = new ArrayList<>();
        if (m.isMoe()) notes.add("mixture of experts: experts are taken as evenly loaded (no router imbalance), and expert"
                + " gradients are reduced over the whole data-parallel group");
        return new StepPrediction(step, tokensPerGpuPerS, tflops, tflops / peak,
                flops.hardware() * tokensPerGpuPerS / 1e12 / peak, flops, compute, Collections.unmodifiableList(phases),
                collectives, memory, eff, optimizer, bubble, notes.isEmpty() ? List.of() : Collections.unmodifiableList(notes));
    }

    /**
     * The framework's time per step beside the kernels the model counts. Where it trains fp32 parameters under
     * torch.autocast ({@link dev.trainadvisor.spec.Framework.Amp}: the Hugging Face Trainer's own loop) there is no
     * master copy to keep, so that is its loop's host time, per step and per micro-batch, and the gradient clipping
     * the Trainer does by default (max_grad_norm 1.0): a norm over the fp32 gradients (4 bytes read) and their scaling
     * in place (4 read, 4 written), 12 bytes a parameter at the achieved HBM bandwidth. Measured on one H200
     * (bench/h200_hf_step_kernels.py, knowledge-base/measurements/h200-hf-step-kernels.json): clip_grad_norm_ over the
     * 1.1 G fp32 gradients of a TinyLlama-shaped model took 3.8 ms, against 3.2 ms from the 12 bytes. Elsewhere the
     * profile's {@code host_seconds_per_step}, measured for bf16 weights with an fp32 master copy (Overheads).
     */
    static double frameworkSeconds(StepContext s, Efficiency eff) {
        Training t = s.training();
        dev.trainadvisor.spec.Framework.Amp amp = t.framework().ampAt(s.parallel().zeroStage());
        if (amp == null) return t.framework().hostSecondsPerStep().value();
        double updated = s.shard().paramsPerGpu() / s.sharding().divisor(MemoryPart.OPTIMIZER_STATES);
        double clip = updated * CLIP_BYTES_PER_PARAM / (s.cluster().gpu().hbmGbps() * 1e9 * eff.hbmFraction());
        return amp.hostSecondsPerStep() + amp.hostSecondsPerMicroBatch() * t.microBatches() + clip;
    }

    /** Gradient clipping over fp32 gradients: the norm reads each (4 bytes), the scaling reads and writes it (8). */
    static final double CLIP_BYTES_PER_PARAM = 12;

    /**
     * Adam over this GPU's shard streams fp32 master weights, momentum and variance in and out
     * (24 bytes), reads the gradient twice (norm for clipping, then the update) and writes the
     * 16-bit weights (2 bytes).
     */
    static double optimizerSeconds(StepContext s, Efficiency eff) {
        // the parameters this GPU updates: its shard of the model, of which ZeRO leaves it a share of the states
        double updated = s.shard().paramsPerGpu() / s.sharding().divisor(MemoryPart.OPTIMIZER_STATES);
        return updated * optimizerBytesPerParam(s.training().gradReducePrecision())
                / (s.cluster().gpu().hbmGbps() * 1e9 * eff.hbmFraction())
                * (s.training().optimizerKernel() == dev.trainadvisor.spec.OptimizerKernel.FOREACH ? FOREACH_OVER_FUSED : 1);
    }

    /**
     * PyTorch's foreach AdamW over its fused kernel, GPU time of the step: 24.0 ms against 9.0 for the 1.1 G fp32
     * parameters of a TinyLlama-shaped model on one H200 (bench/h200_hf_step_kernels.py, sdpa_b4_foreach against sdpa_b4,
     * the optimizer's CUDA-event phase, medians of 10 steps; knowledge-base/measurements/h200-hf-step-kernels.json): its
     * _foreach kernels pass over the states once per operation of the update.
     */
    public static final double FOREACH_OVER_FUSED = 0.0240 / 0.0090;

    /** The HBM bytes Adam moves per parameter it updates, with gradients in {@code grads} ({@link #optimizerSeconds}). */
    public static double optimizerBytesPerParam(Precision grads) { return 24 + 2.0 * grads.bytes + 2; }
}
