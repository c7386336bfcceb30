package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Gpu;
import dev.trainadvisor.spec.KernelCurve;
import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.Recompute;
import dev.trainadvisor.spec.Training;

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

    /**
     * The operations with their times, as a list that times each one and makes its {@link Timed} when it is read: a fit
     * works out the compute at hundreds of points a run and reads only its sums; a report reads the operations of one.
     * Each is timed as {@link #of(Operations, Parallel, Training, Gpu, Efficiency)} timed it for the sums, by the same
     * roofline: the same doubles.
     */
    private static final class Timings extends java.util.AbstractList<Timed> implements java.util.RandomAccess {
        private final Operations operations;
        private final Roofline roofline;

        Timings(Operations operations, Roofline roofline) {
            this.operations = operations;
            this.roofline = roofline;
        }

        @Override
        public Timed get(int i) {
            Operation o = operations.list().get(i);
            double fwd = roofline.forwardSeconds(o, operations.wave()[i], operations.inner()[i]);
            return new Timed(o, fwd, passes(operations, i, roofline, fwd));
        }

        @Override
        public int size() { return operations.list().size(); }
    }

    public double microBatchSeconds() { return forwardSeconds + backwardSeconds; }

    public static ComputeTime of(Model m, Parallel p, Training t, Gpu gpu, Efficiency eff) {
        return of(Operations.of(StepOperations.of(m, p, t), t, gpu), p, t, gpu, eff);
    }

    /**
     * A micro-batch's operations with what the step takes of each from the layout and the GPU alone, not from the
     * efficiencies: the wave-quantization efficiency, the GEMM curve's fraction at its inner dimension, the forward
     * passes the recomputation makes, the kernels launched in all, and the GPU's GEMM curve itself (the Roofline's). Worked
     * out once per layout (StepModel.Pieces). {@code doubledPasses}: where an operation's backward is twice its
     * forward (Roofline#backwardSeconds: all but a grouped GEMM), its forward-equivalent passes as the prediction works
     * them out, {@code passes - 2 + backward / forward}, with the quotient's exact 2 (twice a finite positive double
     * over itself); NaN elsewhere.
     */
    record Operations(List<Operation> list, double[] wave, double[] inner, double[] passes, double[] doubledPasses,
                      double launches, KernelCurve curve) {
        static Operations of(List<Operation> ops, Training t, Gpu gpu) {
            double share = t.fullRecomputeShare();
            boolean selective = t.recompute() == Recompute.SELECTIVE;
            KernelCurve curve = dev.trainadvisor.spec.Catalog.builtIn().gemmCurve(gpu.architecture());
            int sms = Roofline.sms(gpu), n = ops.size();
            double[] wave = new double[n], inner = new double[n], passes = new double[n], doubled = new double[n];
            double launches = 0;
            for (int i = 0; i < n; i++) {
                Operation o = ops.get(i);
                wave[i] = Roofline.waveEfficiency(o, sms);
                inner[i] = Roofline.innerFraction(curve, o);
                passes[i] = o.passes(share, selective);
                doubled[i] = Roofline.backwardIsTwiceForward(o) ? passes[i] - 2 + 2.0 : Double.NaN;
                launches += o.launches(share, selective);
            }
            return new Operations(List.copyOf(ops), wave, inner, passes, doubled, launches, curve);
        }
    }

    /** As {@link #of(Model, Parallel, Training, Gpu, Efficiency)}, of the operations StepOperations gives the run. */
    static ComputeTime of(Operations ops, Parallel p, Training t, Gpu gpu, Efficiency eff) {
        Roofline roofline = new Roofline(gpu, t, eff, ops.curve());
        double gemm = 0, attention = 0, memory = 0, forward = 0, total = 0, waveFlops = 0, gemmFlops = 0;
        double launches = ops.launches();
        List<Operation> operations = ops.list();
        for (int i = 0; i < operations.size(); i++) {
            Operation o = operations.get(i);
            double fwd = roofline.forwardSeconds(o, ops.wave()[i], ops.inner()[i]);
            double passes = passes(ops, i, roofline, fwd);
            forward += fwd;
            total += fwd * passes;
            switch (o.kind()) {
                case GEMM -> gemm += fwd * passes;
                case ATTENTION -> attention += fwd * passes;
                case MEMORY, COPY -> memory += fwd * passes;
            }
            if (o.kind() == Operation.Kind.GEMM && o.inLayer()) {
                gemmFlops += o.flops();
                waveFlops += o.flops() * ops.wave()[i];
            }
        }
        double wave = gemmFlops > 0 ? waveFlops / gemmFlops : 1;
        double host = hostSeconds(launches, t);
        double withHost = Overheads.withHost(total, host, hostOverlapPower(t));
        double scale = withHost / total;
        return new ComputeTime(gemm, attention, memory, forward * scale, (total - forward) * scale, wave,
                StepOperations.tokensPerMicroBatch(p, t), new Timings(ops, roofline), launches, host, withHost - total);
    }

    /**
     * The framework's own pace of launching kernels, where it keeps up with the GPU at one (its profile's
     * host_launches, measured: Python modelling code run eagerly, or a C++ trainer's launches); null where the
     * launches are Inductor's (compiled) or a CUDA graph's.
     */
    private static dev.trainadvisor.spec.Framework.HostLaunches ownPace(Training t) {
        dev.trainadvisor.spec.Framework.Fact<dev.trainadvisor.spec.Framework.HostLaunches> own = t.framework().hostLaunches();
        return own != null && own.value() != null && !t.cudaGraphs()
                && t.elementwiseKernels() != dev.trainadvisor.spec.ElementwiseKernels.COMPILED ? own.value() : null;
    }

    /** The host's time to launch {@code launches} kernels: at its own pace, from CUDA graphs, or Overheads' default. */
    static double hostSeconds(double launches, Training t) {
        dev.trainadvisor.spec.Framework.HostLaunches own = ownPace(t);
        double perLaunch = t.cudaGraphs() ? Overheads.GRAPH_SECONDS_PER_LAUNCH
                : own != null ? own.secondsPerLaunch() : Overheads.HOST_SECONDS_PER_LAUNCH;
        return launches * perLaunch;
    }

    /** How the host's launches overlap the GPU's work (Overheads#withHost): the framework's own power, or the default. */
    static double hostOverlapPower(Training t) {
        dev.trainadvisor.spec.Framework.HostLaunches own = ownPace(t);
        return own != null ? own.overlapPower() : Overheads.HOST_OVERLAP_POWER;
    }

    /**
     * The {@code i}-th operation's forward-equivalent passes, its forward taking {@code fwd}: the backward's own time
     * (two forwards, but for a grouped GEMM's weight gradients) over the forward's, with the recomputed forwards; where
     * the backward is two forwards, the quotient is 2 exactly and the sum the layout's (doubledPasses): the same double,
     * without timing the operation again (a fit times a layout's compute at hundreds of points a run).
     */
    private static double passes(Operations ops, int i, Roofline roofline, double fwd) {
        double doubled = ops.doubledPasses()[i];
        return !(fwd > 0) ? ops.passes()[i]
                : !Double.isNaN(doubled) && fwd < Double.MAX_VALUE / 2 ? doubled
                : ops.passes()[i] - 2 + roofline.backwardSeconds(ops.list().get(i), ops.wave()[i], ops.inner()[i]) / fwd;
    }
}
