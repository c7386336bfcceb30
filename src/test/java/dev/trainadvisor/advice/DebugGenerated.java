package dev.trainadvisor.advice;

import dev.trainadvisor.perf.*;
import org.junit.jupiter.api.Test;

class DebugGenerated {
    @Test
    void show() {
        var runs = GeneratedRuns.generate(8, 200);
        for (int i : new int[]{46, 158, 55}) {
            var g = runs.get(i);
            FitResult f = Fit.fit(g.spec().cluster(), g.spec().run());
            System.out.println(g.spec().name() + " " + g.degraded() + " " + g.trueValue());
            var m = g.spec().run().measured();
            System.out.printf("  measured step %.4f fwd %.4f bwd %.4f opt %.4f%n", m.stepTimeS(), m.forwardTimeS(), m.backwardTimeS(), m.optimizerTimeS());
            var e = f.expected();
            System.out.printf("  expected step %.4f fwd %.4f bwd %.4f opt %.4f%n", e.stepTimeS(), e.forwardSeconds(), e.backwardSeconds(), e.afterBackwardSeconds());
            for (var h : f.hypotheses()) {
                var p = h.scenario().predict();
                System.out.printf("  %-18s post %.3f logZ %.2f cost %.2f | step %.4f fwd %.4f bwd %.4f opt %.4f | %s%n", h.hypothesis().key(), h.posterior(), h.logEvidence(), h.cost(),
                        p.stepTimeS(), p.forwardSeconds(), p.backwardSeconds(), p.afterBackwardSeconds(),
                        h.parameters().stream().map(q -> q.name() + "=" + String.format("%.3g(s%.2f)", q.fitted(), q.posteriorSigma())).toList());
            }
        }
    }
}
