package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Grant;
import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.Explain;
import dev.trainadvisor.facts.Materiality;
import dev.trainadvisor.facts.RuledOut;
import dev.trainadvisor.facts.RemedyProposal;
import dev.trainadvisor.facts.Severity;
import dev.trainadvisor.facts.StepFact;
import dev.trainadvisor.spec.RunChange;
import org.kie.api.definition.rule.Rule;
import org.kie.api.runtime.rule.RuleContext;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * What a rule's consequence builds: a diagnosis or a remedy proposal, named by the firing rule's metadata
 * ({@code @id}, {@code @title}). The rule inserts it (logically, so that it goes when the rule's reasons go):
 *
 * <pre>{@code
 * insertLogical(Conclude.diagnosis(kcontext, Severity.HIGH, $step, $grant, Explanations.linkUnderperforms(...)));
 * }</pre>
 */
public final class Conclude {
    private Conclude() {}

    /** A cost of the configuration that explains the seconds of {@code granted}, of the given severity. */
    public static Diagnosis diagnosis(RuleContext kcontext, Severity severity, StepFact step, Grant granted,
                                      Explain explain) {
        return diagnosis(kcontext, severity, step, granted, explain, false);
    }

    /** A fault (something does less than it should) that explains the seconds of {@code granted}. */
    public static Diagnosis fault(RuleContext kcontext, Severity severity, StepFact step, Grant granted, Explain explain) {
        return diagnosis(kcontext, severity, step, granted, explain, true);
    }

    /** A fault the fit singled out with {@code probability}. */
    public static Diagnosis fault(RuleContext kcontext, Severity severity, StepFact step, Grant granted, Explain explain,
                                  double probability) {
        Diagnosis d = diagnosis(kcontext, severity, step, granted, explain, true);
        return new Diagnosis(d.id(), d.title(), d.severity(), d.impactFraction(), d.explanation(), d.evidence(), d.rule(),
                d.claims(), true, d.confirm(), Math.max(0, Math.min(1, probability)));
    }

    /** A cause, a fault or not, that is as sure as {@code probability}. */
    public static Diagnosis diagnosis(RuleContext kcontext, Severity severity, StepFact step, Grant granted,
                                      Explain explain, boolean fault, double probability) {
        Diagnosis d = diagnosis(kcontext, severity, step, granted, explain, fault);
        return new Diagnosis(d.id(), d.title(), d.severity(), d.impactFraction(), d.explanation(), d.evidence(), d.rule(),
                d.claims(), fault, d.confirm(), Math.max(0, Math.min(1, probability)));
    }

    public static Diagnosis diagnosis(RuleContext kcontext, Severity severity, StepFact step, Grant granted,
                                      Explain explain, boolean fault) {
        Rule rule = kcontext.getRule();
        return new Diagnosis(RuleInfo.meta(rule, "id"), RuleInfo.meta(rule, "title"), severity,
                granted.seconds() / step.stepTimeS(), explain.text() + " [rule " + rule.getName() + "]",
                explain.evidence(), rule.getName(), granted.claims(), fault, RuleInfo.metaOrNull(rule, "confirm"));
    }

    /**
     * A cause seen in the run's history (a stall, a slowdown, a straggler, the data loader): {@code wallShare} of the
     * run's wall time, which the step model's step does not contain, so it claims none of the step's seconds.
     */
    public static Diagnosis history(RuleContext kcontext, Severity severity, double wallShare, Explain explain) {
        Rule rule = kcontext.getRule();
        return new Diagnosis(RuleInfo.meta(rule, "id"), RuleInfo.meta(rule, "title"), severity, wallShare,
                explain.text() + " [rule " + rule.getName() + "]", explain.evidence(), rule.getName(), List.of(), false,
                RuleInfo.metaOrNull(rule, "confirm"));
    }

    /** A finding that explains no seconds of the step (accounting, memory, a healthy run, skipped steps). */
    public static Diagnosis finding(RuleContext kcontext, Severity severity, Explain explain) {
        return finding(kcontext, severity, explain, false);
    }

    /** A finding that explains no seconds of the step, and whether it is a fault (measurements that cannot be right). */
    public static Diagnosis finding(RuleContext kcontext, Severity severity, Explain explain, boolean fault) {
        Rule rule = kcontext.getRule();
        return new Diagnosis(RuleInfo.meta(rule, "id"), RuleInfo.meta(rule, "title"), severity, 0,
                explain.text() + " [rule " + rule.getName() + "]", explain.evidence(), rule.getName(), List.of(), fault,
                RuleInfo.metaOrNull(rule, "confirm"));
    }

    /**
     * What a diagnosis rule tested and found short of {@code materiality}'s threshold; its conditional consequence
     * inserts it ({@code if ( !material ) break[ruledOut]}).
     */
    public static RuledOut ruledOut(RuleContext kcontext, Materiality materiality, StepFact step, Grant granted) {
        Rule rule = kcontext.getRule();
        return new RuledOut(RuleInfo.meta(rule, "id"), RuleInfo.meta(rule, "title"), rule.getName(), granted.seconds(),
                granted.seconds() / step.stepTimeS(), materiality.material());
    }

    /**
     * A remedy of what the run's history shows, priced by the share of the wall time it wins back ({@code wallShare},
     * measured) rather than by the step model; it changes no run-file key.
     */
    public static RemedyProposal historyRemedy(RuleContext kcontext, String action, Collection<?> addresses, String reason,
                                               double wallShare) {
        RemedyProposal r = remedy(kcontext, action, RunChange.NONE, true, addresses, reason);
        return new RemedyProposal(r.id(), r.action(), r.change(), true, r.addresses(), r.reason(), r.rule(), wallShare);
    }

    /**
     * A remedy, named by the rule's {@code @id}, for the diagnoses it answers ({@code addresses}: Diagnosis facts or
     * their ids).
     */
    public static RemedyProposal remedy(RuleContext kcontext, String action, RunChange change, boolean sameMath,
                                        Collection<?> addresses, String reason) {
        Rule rule = kcontext.getRule();
        List<String> ids = new ArrayList<>();
        for (Object o : addresses) {
            String id = o instanceof Diagnosis d ? d.id() : o.toString();
            if (!ids.contains(id)) ids.add(id);
        }
        ids.sort(null);
        return new RemedyProposal(RuleInfo.meta(rule, "id"), action, change, sameMath, ids, reason, rule.getName());
    }
}
