package dev.trainadvisor.report;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.advice.TrainAdvisor;
import dev.trainadvisor.engine.RuleEngine;
import dev.trainadvisor.spec.ReferenceRun;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Fleets for the fleet report's tests and its page benchmark: the examples and every published reference run, advised
 * as batch advises them, and a fleet of any size made of their advice, each copy a run of its own name and file, every
 * other one with a step count (so that totals and rates both appear).
 */
public final class FleetFixtures {
    private FleetFixtures() {}

    /** The advice of the three examples and the published reference runs (not excluded), with the file each is from. */
    public record Advised(List<AdviceView> views, List<String> files) {}

    public static Advised published() {
        TrainAdvisor advisor = new TrainAdvisor(RuleEngine.builtIn()).withoutLayoutSearch();
        List<AdviceView> views = new ArrayList<>();
        List<String> files = new ArrayList<>();
        for (String f : ReportsTest.FILES) {
            RunSpec s = new SpecReader().read(Path.of("examples", f));
            views.add(AdviceView.of(advisor.adviseRun(s.cluster(), s.run())));
            files.add(f);
        }
        for (ReferenceRun r : ReferenceRun.builtIn()) {
            if (r.isExcluded()) continue;
            views.add(AdviceView.of(advisor.adviseRun(r.spec().cluster(), r.spec().run())));
            files.add("reference-runs.json#" + r.id());
        }
        return new Advised(views, files);
    }

    /**
     * {@code n} runs cycling through {@code base}: the i-th named after its source with "-i", in file i.json, and, for
     * every other one that measured its step, 1,000 steps logged.
     */
    public static Fleet of(Advised base, int n) {
        List<AdviceView> views = new ArrayList<>();
        List<String> files = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            AdviceView a = base.views().get(i % base.views().size());
            ObjectNode run = a.run().deepCopy();
            run.put("name", run.path("name").asText() + "-" + i);
            AdviceView.ObservedView o = a.observed();
            if (o != null && i % 2 == 0)
                o = new AdviceView.ObservedView(o.tokensPerGpuPerS(), o.tokensSource(), o.stepTimeS(), o.fwdBwdTimeS(),
                        o.tflopsPerGpu(), o.tflopsConvention(), o.tflopsPerGpuHouse(), o.mfuHouse(), o.relation(), 1000);
            views.add(new AdviceView(run, a.framework(), a.assumed(), a.verdict(), a.summary(), a.prediction(), a.fit(), o,
                    a.gap(), a.implausible(), a.diagnoses(), a.ruledOut(), a.recommendations()));
            files.add(String.format("%05d.json", i));
        }
        return new Fleet(views, files, List.of(), List.of(), null, null);
    }
}
