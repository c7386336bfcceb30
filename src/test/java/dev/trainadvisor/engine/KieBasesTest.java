package dev.trainadvisor.engine;

import dev.trainadvisor.advice.TrainAdvisor;
import dev.trainadvisor.report.Json;
import dev.trainadvisor.spec.RunSpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kie.api.definition.KiePackage;
import org.kie.api.definition.rule.Rule;
import org.kie.api.definition.type.Description;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The shipped rules run as compiled at build time (Drools' executable model, {@link KieBases#shipped()}); with a
 * user's rules folder they are compiled again from the DRL on the classpath ({@link KieBases#compile}). Both must
 * hold the same rules and conclude the same from the same run: every example and every published reference run is
 * advised through both.
 */
class KieBasesTest {
    @TempDir
    static Path emptyFolder;

    static RuleEngine fromSource;

    @BeforeAll
    static void compileTheShippedDrl() {
        fromSource = RuleEngine.withFolder(emptyFolder);
    }

    @Test
    void theBuildTimeModelHoldsEveryShippedRuleWithItsMetadata() {
        assertFalse(KieBases.shippedModelClasses().isEmpty());
        assertEquals(fromSource.rules(), RuleEngine.builtIn().rules());
    }

    @Test
    void shippedRulesFileTheirDescriptionWhereDrlCompiledAtRunTimeDoes() {
        for (KiePackage pkg : KieBases.shipped().getKiePackages()) {
            for (Rule r : pkg.getRules()) {
                Object d = r.getMetaData().get(Description.class.getName());
                assertTrue(d != null && d.toString().length() > 40, r.getName() + ": " + r.getMetaData());
            }
        }
    }

    @Test
    void buildTimeAndRunTimeCompiledRulesGiveTheSameAdvice() throws IOException {
        List<RunSpec> runs = GivenFacts.everyRun();
        TrainAdvisor buildTime = new TrainAdvisor(RuleEngine.builtIn()), runTime = new TrainAdvisor(fromSource);
        int diagnosed = 0;
        for (RunSpec s : runs) {
            String expected = Json.of(runTime.adviseRun(s.cluster(), s.run()));
            assertEquals(expected, Json.of(buildTime.adviseRun(s.cluster(), s.run())), s.name());
            if (expected.contains("\"rule\"")) diagnosed++;
        }
        assertTrue(runs.size() > 200 && diagnosed > 100, runs.size() + " runs, " + diagnosed + " with diagnoses");
    }
}
