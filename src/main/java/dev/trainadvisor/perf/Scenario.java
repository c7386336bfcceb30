package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.IntraNodeLink;
import dev.trainadvisor.spec.Network;
import dev.trainadvisor.spec.RunMetrics;

/**
 * A run on a cluster at given efficiencies: what the step model predicts. The four quantities a fit estimates
 * ({@link FitParam}) are read and replaced here, so that the fit, the baseline and every what-if move them the
 * same way.
 *
 * @param base         the GPU's default efficiencies, which {@code computeScale} multiplies
 * @param computeScale GEMM and attention throughput over {@code base}
 * @param overlap      the share of an overlap window that hides communication
 */
public record Scenario(Cluster cluster, RunMetrics run, Efficiency base, double computeScale, double overlap) {

    /** The run as the catalogue describes it: default efficiencies of its GPU and precision. */
    public static Scenario catalogue(Cluster cluster, RunMetrics run) {
        Efficiency d = Efficiency.defaults(cluster.gpu(), run);
        return new Scenario(cluster, run, d, 1.0, d.overlapFraction());
    }

    public Efficiency efficiency() {
        if (computeScale == 1.0 && overlap == base.overlapFraction()) return base;
        return base.withComputeScale(computeScale).withOverlap(overlap);
    }

    public StepPrediction predict() { return StepModel.predict(cluster, run, efficiency()); }

    /** The times alone of a scenario asked for once (StepModel#times): what a fit compares with measured times. */
    StepModel.Times times() { return StepModel.times(cluster, run, efficiency()); }

    /** The value of a fitted quantity in this scenario; NaN when the cluster has no such link. */
    public double value(FitParam p) {
        return switch (p) {
            case COMPUTE_SCALE -> computeScale;
            case OVERLAP_FRACTION -> overlap;
            case INTRA_NODE_BUSBW -> hasIntraLink() ? cluster.intraNode().busbwGbps() : Double.NaN;
            case INTER_NODE_GBPS -> hasNetwork() ? cluster.interNode().nodeGbps() : Double.NaN;
        };
    }

    /** This scenario with one fitted quantity replaced; a link's bandwidth then counts as measured. */
    public Scenario with(FitParam p, double v) {
        return switch (p) {
            case COMPUTE_SCALE -> new Scenario(cluster, run, base, v, overlap);
            case OVERLAP_FRACTION -> new Scenario(cluster, run, base, computeScale, v);
            case INTRA_NODE_BUSBW -> {
                IntraNodeLink l = cluster.intraNode();
                yield new Scenario(cluster.withIntraNode(l.withMeasuredBusbw(v)), run, base, computeScale, overlap);
            }
            case INTER_NODE_GBPS -> {
                Network n = cluster.interNode();
                yield new Scenario(cluster.withInterNode(new Network(n.key(), n.lineRateGbitS(), n.efficiency(),
                        n.alphaUs(), n.nicsPerNode(), v, n.source(), n.sharp())), run, base, computeScale, overlap);
            }
        };
    }

    /** Whether the step has an intra-node link to move: more than one GPU per node, on a link of finite bandwidth. */
    public boolean hasIntraLink() {
        IntraNodeLink l = cluster.intraNode();
        return cluster.gpusPerNode() > 1 && l != null && l.busbwGbps() > 0 && Double.isFinite(l.busbwGbps());
    }

    /** Whether the step has a network to move: more than one node. */
    public boolean hasNetwork() {
        Network n = cluster.interNode();
        return cluster.nodes() > 1 && n != null && n.nodeGbps() > 0 && Double.isFinite(n.nodeGbps());
    }
}
