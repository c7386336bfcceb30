package dev.trainadvisor.bench;

import dev.trainadvisor.perf.Fit;
import dev.trainadvisor.perf.FitResult;
import dev.trainadvisor.perf.StepModel;
import dev.trainadvisor.perf.StepPrediction;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Speed targets (issue 3): one prediction under 20 us, one fit under 2 ms. Run with bench/run.sh; the targets are
 * checked here, not by timed unit tests.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class StepModelBenchmark {
    RunSpec pcie;
    RunSpec twoNodes;

    @Setup
    public void setUp() {
        pcie = new SpecReader().read(Path.of("examples/internlm-7b-pcie-1node.yaml"));
        twoNodes = new SpecReader().read(Path.of("examples/internlm-7b-pcie-2nodes.yaml"));
    }

    @Benchmark
    public StepPrediction predictOneNode() { return StepModel.predict(pcie.cluster(), pcie.run()); }

    @Benchmark
    public StepPrediction predictTwoNodes() { return StepModel.predict(twoNodes.cluster(), twoNodes.run()); }

    /** The fit to the PCIe run's measured tokens/s and forward-backward time. */
    @Benchmark
    public FitResult fitOneNode() { return Fit.fit(pcie.cluster(), pcie.run()); }
}
