package dev.trainadvisor.engine;

import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.Names;

import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The ids a rule file compares a diagnosis or remedy with ({@code Diagnosis( id == "..." )}) must be ids some rule
 * declares: a mistyped or renamed id would otherwise make the rule silently never match. The shipped rules name causes
 * by facts.Cause's constants (a renamed one fails to compile); a user's rule file may name its own ids as strings, and
 * is refused here, with the file, the line and the nearest known id, when one names an id no rule declares.
 */
final class DiagnosisIds {
    private DiagnosisIds() {}

    private static final Pattern COMPARED = Pattern.compile("\\bid\\s*[!=]=\\s*\"([^\"]*)\"");

    /**
     * @param drlByFile the rule files, by name
     * @param declared  every id a rule of them declares ({@code @id})
     * @throws SpecException naming the first file and line that compares an undeclared id
     */
    static void check(Map<String, String> drlByFile, Set<String> declared) {
        for (Map.Entry<String, String> f : drlByFile.entrySet()) {
            String drl = f.getValue();
            for (Matcher m = COMPARED.matcher(drl); m.find(); ) {
                String id = m.group(1);
                if (declared.contains(id)) continue;
                int line = 1 + (int) drl.substring(0, m.start()).chars().filter(c -> c == '\n').count();
                String near = Names.nearest(id, declared, 3);
                throw new SpecException(f.getKey(), null, "ids that a rule declares in comparisons of a diagnosis or remedy id;"
                        + " line " + line + " compares with '" + id + "', which no rule declares, so the rule could never match"
                        + (near.isEmpty() ? "" : " (nearest: " + near + ")"));
            }
        }
    }
}
