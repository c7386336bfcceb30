package dev.trainadvisor.engine;

import dev.trainadvisor.spec.Resources;
import dev.trainadvisor.spec.SpecException;
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
     * used in the error message, to its DRL.
     */
    public static KieBase compile(Map<String, String> drlByFileName) {
        KieServices ks = KieServices.get();
        KieFileSystem kfs = ks.newKieFileSystem();
        int i = 0;
        for (String drl : drlByFileName.values()) kfs.write("src/main/resources/rules" + i++ + ".drl", drl);
        KieBuilder builder = ks.newKieBuilder(kfs).buildAll();
        Results results = builder.getResults();
        if (results.hasMessages(Message.Level.ERROR)) {
            StringBuilder s = new StringBuilder();
            for (Message m : results.getMessages(Message.Level.ERROR)) s.append("\n  ").append(m.getText());
            throw new SpecException(String.join(", ", drlByFileName.keySet()), null, "rules that compile:" + s);
        }
        return ks.newKieContainer(builder.getKieModule().getReleaseId()).getKieBase();
    }
}
