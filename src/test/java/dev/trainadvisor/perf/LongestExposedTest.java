package dev.trainadvisor.perf;

import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The collective a report names as exposed longest (the next bottleneck of a remedy): of two exposed alike but for a
 * rounding error the first, whichever of the two doubles is larger, so that summing the same seconds in another order
 * does not change the name printed; of two a hundredth apart the longer, whichever comes first.
 */
class LongestExposedTest {

    private static StepPrediction with(StepPrediction p, List<Collective> cs) {
        return new StepPrediction(p.stepTimeS(), p.tokensPerGpuPerS(), p.tflopsPerGpu(), p.mfu(), p.hfu(),
                p.flopsPerToken(), p.compute(), p.phases(), cs, p.memory(), p.efficiency(), p.optimizerSeconds(),
                p.bubbleSeconds(), p.notes());
    }

    private static Collective exposed(Collective c, double seconds) {
        return new Collective(c.op(), c.groupSize(), c.bytesPerPass(), c.passesPerStep(), c.calls(), c.link(), c.seconds(),
                seconds, c.overlapsWith(), c.forwardShare(), c.afterBackward(), c.cost());
    }

    @Test
    void aRoundingErrorDoesNotChooseTheLongest() {
        RunSpec s = new SpecReader().read(Path.of("examples/internlm-7b-pcie-1node.yaml"));
        StepPrediction p = Scenario.catalogue(s.cluster(), s.run()).predict();
        assertTrue(p.collectives().size() >= 2, "collectives: " + p.collectives());
        double x = 0.1 * p.stepTimeS();
        Collective a = exposed(p.collectives().get(0), x), b = p.collectives().get(1);
        // b longer by a few units in the last place, as another order of the same sums gives
        Collective tie = exposed(b, Math.nextUp(Math.nextUp(x)));
        assertTrue(tie.exposedSeconds() > a.exposedSeconds());
        assertSame(a, with(p, List.of(a, tie)).longestExposed());
        assertSame(tie, with(p, List.of(tie, a)).longestExposed());
        // a hundredth longer is longer, wherever it comes
        Collective longer = exposed(b, 1.01 * x);
        assertSame(longer, with(p, List.of(a, longer)).longestExposed());
        assertSame(longer, with(p, List.of(longer, a)).longestExposed());
        assertNull(with(p, List.of()).longestExposed());
    }
}
