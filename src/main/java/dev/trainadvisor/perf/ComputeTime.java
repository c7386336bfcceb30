package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Gpu;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.Recompute;
import dev.trainadvisor.spec.Training;

import java.util.ArrayList;
import java.util.List;

/**
 * Time of one micro-batch's forward and backward on the slowest pipeline stage of one GPU: every operation of
 * {@link StepOperations}, timed by the {@link Roofline}, over its passes (forward, backward, recomputation).
 *
 * @param gemmSeconds      forward + backward (+ recompute) GEMM time per micro-batch
 * @param attentionSeconds attention core time per micro-batch
 * @param memorySeconds    memory-bound kernels per micro-batch
 * @param forwardSeconds   the forward share of the three (for overlap windows)
 * @param waveEfficiency   the FLOP-weighted wave-quantization efficiency of the layer GEMMs
 * @param operations       each operation with its forward seconds and passes
 * @param launches         kernels the host launches per micro-batch
 * @param hostSeconds      the host's time to launch them ({@link Overheads#HOST_SECONDS_PER_LAUNCH}, or from CUDA graphs)
 * @param hostBoundSeconds what the launches add to the GPU's work per micro-batch ({@link Overheads#withHost}); the
 *                         forward and backward seconds include it, in proportion
 */
public record ComputeTime(double gemmSeconds, double attentionSeconds, double memorySeconds,
                          double forwardSeconds, double backwardSeconds, double waveEfficiency,
                          double tokensPerMicroBatch, List<Timed> operations, double launches, double hostSeconds,
                          double hostBoundSeconds) {

    /** cuBLAS tiles of 128 x 128 outputs, one per SM per wave ({@link Roofline#TILE}). */
    public static final int TILE = Roofline.TILE;

    /** An operation with its forward time, and the forward-equivalent passes a micro-batch runs of it. */
    public record Timed(Operation operation, double forwardSeconds, double passes) {
        public double seconds() { return forwardSeconds * passes; }
    }

    public double microBatchSeconds() { return forwardSeconds + backwardSeconds; }

    public static ComputeTime of(Model m, Parallel p, Training t, Gpu gpu, Efficiency eff) {
        Roofline roofline = new Roofline(gpu, t, eff);
        double share = t.fullRecomputeShare();
        boolean selective = t.recompute() == Recompute.SELECTIVE;
        double gemm = 0, attention = 0, memory = 0, forward = 0, total = 0, waveFlops = 0, gemmFlops = 0, launches = 0;
        List<Timed> timed = new ArrayList<>();
        for (Operation o : StepOperations.of(m, p, t)) {
            double fwd = roofline.forwardSeconds(o);
            // forward-equivalent passes: the backward's own time (two forwards, but for a grouped GEMM's weight
            // gradients) over the forward's, with the recomputed forwards
            double passes = fwd > 0 ? o.passes(share, selective) - 2 + roofline.backwardSeconds(o) / fwd
                    : o.passes(share, selective);
            timed.add(new Timed(o, fwd, passes));
            launches += o.launches(share, selective);
            forward += fwd;
            total += fwd * passes;
            switch (o.kind()) {
                case GEMM -> gemm += fwd * passes;
                case ATTENTION -> attention += fwd * passes;
                case MEMORY, COPY -> memory += fwd * passes;
            }
            if (o.kind() == Operation.Kind.GEMM && o.inLayer()) {
                gemmFlops += o.flops();
                waveFlops += o.flops() * roofline.waveEfficiency(o);
            }
        }
        double wave = gemmFlops > 0 ? waveFlops / gemmFlops : 1;
        // the framework's own code may keep up with the GPU at its own pace (its profile's host_launches, measured:
        // Python modelling code run eagerly, or a C++ trainer's launches); compiled or replayed from graphs the
        // launches are Inductor's or the graph's
        dev.trainadvisor.spec.Framework.Fact<dev.trainadvisor.spec.Framework.HostLaunches> own = t.framework().hostLaunches();
        boolean ownPace = own != null && own.value() != null && !t.cudaGraphs()
                && t.elementwiseKernels() != dev.trainadvisor.spec.ElementwiseKernels.COMPILED;
        double perLaunch = t.cudaGraphs() ? Overheads.GRAPH_SECONDS_PER_LAUNCH
                : ownPace ? own.value().secondsPerLaunch() : Overheads.HOST_SECONDS_PER_LAUNCH;
        double host = launches * perLaunch;
        double withHost = ownPace ? Overheads.withHost(total, host, own.value().overlapPower()) : Overheads.withHost(total, host);
        double scale = withHost / total;
        return new ComputeTime(gemm, attention, memory, forward * scale, (total - forward) * scale, wave,
                StepOperations.tokensPerMicroBatch(p, t), java.util.Collections.unmodifiableList(timed), launches, host,
                withHost - total);
    }
}
