package dev.trainadvisor.advice;

import dev.trainadvisor.assemble.RunFiles;
import dev.trainadvisor.engine.RuleEngine;
import dev.trainadvisor.report.Json;
import dev.trainadvisor.spec.RunSpec;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The command line fits a run while the shipped rule base is still being built (TrainAdvisor.withRulesWhenNeeded):
 * the advice is the one the built rules give, and they are asked for once an advice.
 */
class RulesWhenNeededTest {
    @Test
    void rulesAskedForAfterTheFitGiveTheSameAdvice() {
        for (String f : new String[]{"examples/internlm-7b-pcie-1node.yaml", "examples/internlm-7b-nvlink-1node.yaml"}) {
            RunSpec s = RunFiles.read(Path.of(f));
            AtomicInteger asked = new AtomicInteger();
            String later = Json.of(TrainAdvisor.withRulesWhenNeeded(() -> {
                asked.incrementAndGet();
                return RuleEngine.builtIn();
            }).adviseRun(s.cluster(), s.run()));
            assertEquals(Json.of(new TrainAdvisor(RuleEngine.builtIn()).adviseRun(s.cluster(), s.run())), later, f);
            assertEquals(1, asked.get(), f);
        }
    }
}
