package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.Evidence;
import dev.trainadvisor.facts.RemedyProposal;
import dev.trainadvisor.facts.Severity;
import org.kie.api.definition.rule.Rule;
import org.kie.api.runtime.rule.RuleContext;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The global through which rules report: each diagnosis takes its id and title from the firing
 * rule's metadata ({@code @id}, {@code @title}), is inserted into working memory (so later rules,
 * such as {@code healthy}, can see it) and is collected here.
 */
public final class Findings {
    private final List<Diagnosis> diagnoses = new ArrayList<>();
    private final List<RemedyProposal> proposals = new ArrayList<>();

    /** A cause costing {@code impactFraction} of the step; severity follows from the impact. */
    public Diagnosis diagnose(RuleContext kcontext, double impactFraction, String explanation, Evidence... evidence) {
        return add(kcontext, Severity.ofImpact(impactFraction), impactFraction, explanation, evidence);
    }

    /** A finding that costs no time by itself (accounting, a healthy run). */
    public Diagnosis inform(RuleContext kcontext, String explanation, Evidence... evidence) {
        return add(kcontext, Severity.INFO, 0, explanation, evidence);
    }

    private Diagnosis add(RuleContext kcontext, Severity severity, double impact, String explanation, Evidence[] evidence) {
        Rule rule = kcontext.getRule();
        Diagnosis d = new Diagnosis(meta(rule, "id"), meta(rule, "title"), severity.key(), impact,
                explanation + " [rule " + rule.getName() + "]", Arrays.asList(evidence), rule.getName());
        diagnoses.add(d);
        kcontext.getKieRuntime().insert(d);
        return d;
    }

    /** A remedy for the diagnosis of the firing rule, as a change to the run file. */
    public void propose(RuleContext kcontext, String id, String action, Map<String, Object> change, String explanation) {
        Rule rule = kcontext.getRule();
        proposals.add(new RemedyProposal(id, action, change, List.of(meta(rule, "id")), explanation, rule.getName()));
    }

    static String meta(Rule rule, String key) {
        Object v = rule.getMetaData().get(key);
        // Drools files @description under the annotation's class name
        if (v == null && key.equals("description")) v = rule.getMetaData().get("org.kie.api.definition.type.Description");
        if (v == null) throw new IllegalStateException("rule '" + rule.getName() + "' lacks @" + key + "(...)");
        return unquote(v.toString());
    }

    static String unquote(String s) {
        return s.length() >= 2 && s.startsWith("\"") && s.endsWith("\"") ? s.substring(1, s.length() - 1) : s;
    }

    public List<Diagnosis> diagnoses() { return List.copyOf(diagnoses); }

    public List<RemedyProposal> proposals() { return List.copyOf(proposals); }
}
