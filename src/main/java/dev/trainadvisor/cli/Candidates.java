package dev.trainadvisor.cli;

import dev.trainadvisor.search.LayoutSearch;
import dev.trainadvisor.spec.AttentionKernel;
import dev.trainadvisor.spec.ElementwiseKernels;
import dev.trainadvisor.spec.Frameworks;
import dev.trainadvisor.spec.OptimizerKernel;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.Presets;
import dev.trainadvisor.spec.Recompute;

import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;

/**
 * The values an option takes, from the catalogue and the run file's vocabulary themselves, so that the help
 * ({@code ${COMPLETION-CANDIDATES}}) and the shell completion list exactly what the reader accepts. The options stay
 * strings: the reader checks them as it checks a run file's, with the same message.
 */
final class Candidates {
    private Candidates() {}

    private static List<String> keys(Enum<?>[] values) {
        return Arrays.stream(values).map(v -> v.name().toLowerCase(Locale.ROOT)).toList();
    }

    static final class AttentionKernels implements Iterable<String> {
        @Override public Iterator<String> iterator() { return keys(AttentionKernel.values()).iterator(); }
    }

    static final class Elementwise implements Iterable<String> {
        @Override public Iterator<String> iterator() { return keys(ElementwiseKernels.values()).iterator(); }
    }

    static final class OptimizerKernels implements Iterable<String> {
        @Override public Iterator<String> iterator() { return keys(OptimizerKernel.values()).iterator(); }
    }

    static final class Precisions implements Iterable<String> {
        @Override public Iterator<String> iterator() { return Arrays.stream(Precision.values()).map(Precision::key).iterator(); }
    }

    static final class RankOrders implements Iterable<String> {
        @Override public Iterator<String> iterator() { return dev.trainadvisor.spec.RankOrder.keys().iterator(); }
    }

    static final class Recomputes implements Iterable<String> {
        @Override public Iterator<String> iterator() { return Arrays.stream(Recompute.values()).map(Recompute::key).iterator(); }
    }

    static final class FrameworkNames implements Iterable<String> {
        @Override public Iterator<String> iterator() { return Frameworks.builtIn().profiles().keySet().iterator(); }
    }

    static final class ClusterPresets implements Iterable<String> {
        @Override public Iterator<String> iterator() { return Presets.clusters().keySet().iterator(); }
    }

    static final class ModelPresets implements Iterable<String> {
        @Override public Iterator<String> iterator() { return Presets.models().keySet().iterator(); }
    }

    static final class Knobs implements Iterable<String> {
        @Override public Iterator<String> iterator() { return LayoutSearch.KNOBS.iterator(); }
    }

    static final class Booleans implements Iterable<String> {
        @Override public Iterator<String> iterator() { return List.of("true", "false").iterator(); }
    }
}
