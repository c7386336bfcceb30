package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.RemedyProposal;
import dev.trainadvisor.spec.Resources;
import dev.trainadvisor.spec.SpecException;
import org.kie.api.KieBase;
import org.kie.api.definition.KiePackage;
import org.kie.api.definition.rule.Rule;
import org.kie.api.runtime.KieSession;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Drools over the rule files: those shipped in {@code rules/*.drl} on the classpath, plus any
 * folder of {@code *.drl} a user adds. Builds the rule base once; each run gets a fresh session.
 */
public final class RuleEngine {
    private static volatile RuleEngine builtIn;

    private final KieBase kieBase;
    private final List<RuleInfo> rules;

    private RuleEngine(KieBase kieBase, Map<String, String> drlByFile) {
        this.kieBase = kieBase;
        this.rules = describe(kieBase, drlByFile);
    }

    /** The shipped rules. */
    public static RuleEngine builtIn() {
        RuleEngine e = builtIn;
        if (e == null) {
            synchronized (RuleEngine.class) {
                if (builtIn == null) builtIn = new RuleEngine(KieBases.shipped(), shipped());
                e = builtIn;
            }
        }
        return e;
    }

    /** The shipped rules plus every {@code *.drl} in {@code extraFolder}. */
    public static RuleEngine withFolder(Path extraFolder) {
        Map<String, String> drl = shipped();
        if (!Files.isDirectory(extraFolder))
            throw new SpecException(extraFolder.toString(), null, "a folder of *.drl rule files");
        try (Stream<Path> files = Files.list(extraFolder)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".drl")).sorted().toList())
                drl.put(p.toString(), Files.readString(p));
        } catch (IOException e) {
            throw new SpecException(extraFolder.toString(), null, "a readable folder: " + e.getMessage());
        }
        return new RuleEngine(KieBases.compile(drl), drl);
    }

    private static Map<String, String> shipped() {
        Map<String, String> drl = new LinkedHashMap<>();
        for (String name : Resources.list("rules", ".drl")) {
            try (InputStream in = Resources.open(name)) {
                drl.put(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        if (drl.isEmpty()) throw new IllegalStateException("no rules/*.drl on the classpath");
        return drl;
    }

    private static List<RuleInfo> describe(KieBase kb, Map<String, String> drlByFile) {
        List<RuleInfo> out = new ArrayList<>();
        for (KiePackage pkg : kb.getKiePackages()) {
            for (Rule r : pkg.getRules()) {
                String file = drlByFile.entrySet().stream()
                        .filter(e -> e.getValue().contains("rule \"" + r.getName() + "\"")).map(Map.Entry::getKey)
                        .findFirst().orElse("?");
                out.add(new RuleInfo(r.getName(), Findings.meta(r, "id"), Findings.meta(r, "title"),
                        Findings.meta(r, "description"), file));
            }
        }
        out.sort(Comparator.comparing(RuleInfo::file).thenComparing(RuleInfo::name));
        return List.copyOf(out);
    }

    public List<RuleInfo> rules() { return rules; }

    /** What the rules conclude from these facts. */
    public Result run(Collection<?> facts) {
        KieSession session = kieBase.newKieSession();
        try {
            Findings findings = new Findings();
            session.setGlobal("findings", findings);
            for (Object f : facts) session.insert(f);
            session.fireAllRules();
            return new Result(findings.diagnoses(), findings.proposals());
        } finally {
            session.dispose();
        }
    }

    public record Result(List<Diagnosis> diagnoses, List<RemedyProposal> proposals) {}
}
