package dev.trainadvisor.engine;

import dev.trainadvisor.spec.Resources;
import dev.trainadvisor.input.SpecException;
import org.drools.base.definitions.rule.impl.RuleImpl;
import org.drools.model.Model;
import org.drools.modelcompiler.KieBaseBuilder;
import org.kie.api.KieBase;
import org.kie.api.KieServices;
import org.kie.api.builder.KieBuilder;
import org.kie.api.builder.KieFileSystem;
import org.kie.api.builder.Message;
import org.kie.api.builder.Results;
import org.kie.api.definition.KiePackage;
import org.kie.api.definition.rule.Rule;
import org.kie.api.definition.type.Description;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Where a rule base comes from. The shipped {@code rules/*.drl} are compiled at build time (kie-maven-plugin, see
 * pom.xml) into Drools' executable model: Java classes that {@link #shipped()} only loads, instead of parsing and
 * compiling DRL at every start. DRL given at run time (a user's rules folder) is compiled by {@link #compile(Map)}.
 */
public final class KieBases {
    /**
     * Written by kie-maven-plugin beside the generated classes: a version line, then the executable-model class of
     * each rule package ({@code META-INF/kie/<groupId>/<artifactId>/drools-model}).
     */
    static final String SHIPPED_MODEL = "META-INF/kie/dev.trainadvisor/train-advisor/drools-model";

    private KieBases() {}

    static {
        // The diagnosis rules end in a conditional named consequence (`if ( !material ) do[ruledOut]`), which Drools
        // 10.2's eager segment builder cannot attach (NullPointerException in BuildtimeSegmentUtilities
        // .updateSegmentEndNodes when the network is built); the lazy builder, Drools' default before 8.x, builds it.
        // Set before any rule base exists, unless the user chose otherwise.
        if (System.getProperty("drools.useEagerSegmentCreation") == null)
            System.setProperty("drools.useEagerSegmentCreation", "false");
    }

    /** The shipped rules, as compiled at build time. */
    public static KieBase shipped() {
        List<Model> models = new ArrayList<>();
        for (String className : shippedModelClasses()) {
            try {
                models.add((Model) Class.forName(className, true, KieBases.class.getClassLoader())
                        .getDeclaredConstructor().newInstance());
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("the build-time rule model lists " + className + ", which does not load", e);
            }
        }
        KieBase kieBase = KieBaseBuilder.createKieBaseFromModel(models);
        // DRL compiled at run time files @description under the annotation's class name, the executable model under
        // "description": give the shipped rules both keys, so that their metadata reads as it always has
        for (KiePackage pkg : kieBase.getKiePackages()) {
            for (Rule rule : pkg.getRules()) {
                Object description = rule.getMetaData().get("description");
                if (description != null && rule.getMetaData().get(Description.class.getName()) == null
                        && rule instanceof RuleImpl r) r.addMetaAttribute(Description.class.getName(), description);
            }
        }
        return kieBase;
    }

    static List<String> shippedModelClasses() {
        if (!Resources.exists(SHIPPED_MODEL))
            throw new IllegalStateException("no " + SHIPPED_MODEL + " on the classpath: the rules were not compiled at build"
                    + " time (mvn package runs kie-maven-plugin)");
        List<String> classes = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(Resources.open(SHIPPED_MODEL), StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                line = line.strip();
                if (!line.isEmpty() && !line.startsWith("Drools-Model-Version:")) classes.add(line);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (classes.isEmpty()) throw new IllegalStateException(SHIPPED_MODEL + " lists no rule packages");
        return classes;
    }

    /**
     * Compiles DRL now (slow: seconds), in one pass that reports every error. {@code drlByFileName} maps a file name,
     * used in the error message, to its DRL; a file that does not compile is an input error naming the file, line and
     * message of each problem.
     */
    public static KieBase compile(Map<String, String> drlByFileName) { return compile(drlByFileName, java.util.Set.of()); }

    /**
     * As {@link #compile(Map)}, the files named in {@code userFiles} checked first by {@link RuleFileCheck} (their text,
     * then the code they compile to): a rule file that reaches for the process, files, threads or reflection is refused.
     */
    public static KieBase compile(Map<String, String> drlByFileName, java.util.Set<String> userFiles) {
        Map<String, String> packages = new java.util.LinkedHashMap<>();
        for (String f : userFiles) {
            RuleFileCheck.checkText(f, drlByFileName.get(f));
            packages.put(f, RuleFileCheck.packageOf(drlByFileName.get(f)));
        }
        KieBase kieBase = build(drlByFileName);
        RuleFileCheck.checkCompiled(kieBase, packages);
        return kieBase;
    }

    private static KieBase build(Map<String, String> drlByFileName) {
        KieServices ks = KieServices.get();
        KieFileSystem kfs = ks.newKieFileSystem();
        Map<String, String> byPath = new java.util.LinkedHashMap<>();
        int i = 0;
        for (Map.Entry<String, String> e : drlByFileName.entrySet()) {
            String path = "src/main/resources/rules" + i++ + ".drl";
            byPath.put(path, e.getKey());
            kfs.write(path, e.getValue());
        }
        KieBuilder builder = ks.newKieBuilder(kfs).buildAll();
        Results results = builder.getResults();
        if (results.hasMessages(Message.Level.ERROR)) {
            List<String> lines = new ArrayList<>();
            java.util.Set<String> files = new java.util.LinkedHashSet<>();
            for (Message m : results.getMessages(Message.Level.ERROR)) {
                String file = fileOf(m.getPath(), byPath);
                String text = m.getText().replaceAll("\\s+", " ").trim();
                int line = m.getLine();
                if (line < 1) line = lineOf(drlByFileName.get(file), text);
                files.add(file);
                lines.add(file + ":" + (line < 1 ? "?" : String.valueOf(line)) + ": " + text);
            }
            if (lines.stream().anyMatch(l -> l.contains("RunFact")))
                lines.add("(RunFact is gone: match the run's own records, dev.trainadvisor.spec.Cluster, Parallel, Training"
                        + " and Model, e.g. Parallel( tp > 1, !sequenceParallel ), and facts.LinkFact for the bandwidth a link"
                        + " runs at; README, \"Your own rules\")");
            throw new SpecException(String.join(", ", files), null, "rules that compile:\n  " + String.join("\n  ", lines));
        }
        return ks.newKieContainer(builder.getKieModule().getReleaseId()).getKieBase();
    }

    /** The user's file name of the path the rules were compiled under. */
    private static String fileOf(String path, Map<String, String> byPath) {
        if (path == null) return "?";
        for (Map.Entry<String, String> e : byPath.entrySet()) if (path.endsWith(e.getKey()) || e.getKey().endsWith(path)) return e.getValue();
        return path;
    }

    private static final java.util.regex.Pattern EXPRESSION =
            java.util.regex.Pattern.compile("Unable to Analyse Expression (.+?):(?: \\[|$)");

    /**
     * Drools reports some errors (MVEL's analysis of a constraint) without a line: the first line of the file that
     * holds the expression it names, or 0.
     */
    static int lineOf(String drl, String message) {
        if (drl == null) return 0;
        java.util.regex.Matcher m = EXPRESSION.matcher(message);
        if (!m.find()) return 0;
        String expr = m.group(1).trim();
        int at = drl.indexOf(expr);
        if (at < 0) return 0;
        return 1 + (int) drl.substring(0, at).chars().filter(c -> c == '\n').count();
    }
}
