package dev.trainadvisor.engine;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;

/** Where each shipped rule is reported to be declared (the reports' "rule, file:line") is its `rule "NAME"` line. */
class RuleInfoTest {
    @Test
    void everyShippedRuleIsAtItsHeaderLine() {
        Map<String, String> drl = RuleEngine.shipped();
        int rules = 0;
        for (RuleInfo i : RuleEngine.builtIn().rules()) {
            String text = drl.get(i.file());
            assertNotNull(text, i.file());
            String[] lines = text.split("\n", -1);
            assertTrue(i.line() >= 1 && i.line() <= lines.length, i.toString());
            assertTrue(Pattern.compile("\\s*rule\\s+\"" + Pattern.quote(i.name()) + "\".*").matcher(lines[i.line() - 1]).matches(),
                    i.name() + " at " + i.file() + ":" + i.line() + " reads '" + lines[i.line() - 1] + "'");
            // the first such line of the file
            for (int k = 0; k < i.line() - 1; k++)
                assertFalse(lines[k].matches("\\s*rule\\s+\"" + Pattern.quote(i.name()) + "\".*"), i.name() + " also at line " + (k + 1));
            rules++;
        }
        // every rule of the rule base, each described once
        assertEquals(RuleEngine.builtIn().kieBase().getKiePackages().stream().mapToInt(p -> p.getRules().size()).sum(), rules);
    }
}
