package dev.trainadvisor.facts;

import dev.trainadvisor.perf.Phase;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The arithmetic of attribution, for the rules: which seconds of the step a diagnosis may claim, given the seconds it
 * explains and those already claimed by the causes it yields to. The rules decide who yields to whom; this adds up.
 */
public final class Claims {
    private Claims() {}

    /**
     * Grants {@code wanted} less what {@code prior} diagnoses already claim of the same phases, and never more than a
     * phase's seconds.
     */
    public static Grant grant(Materiality m, StepFact step, Collection<Claim> wanted, Collection<?> prior) {
        Map<String, Double> taken = new LinkedHashMap<>();
        for (Object o : prior) for (Claim c : ((Diagnosis) o).claims()) taken.merge(c.phase(), c.seconds(), Double::sum);
        Map<String, Double> want = new LinkedHashMap<>();
        for (Claim c : wanted) want.merge(c.phase(), c.seconds(), Double::sum);
        List<Claim> out = new ArrayList<>();
        double total = 0;
        for (Map.Entry<String, Double> e : want.entrySet()) {
            double free = step.phase(e.getKey()) - taken.getOrDefault(e.getKey(), 0.0);
            double s = Math.min(e.getValue(), Math.max(0, free));
            if (s > 0) {
                out.add(new Claim(e.getKey(), s));
                total += s;
            }
        }
        return new Grant(out, total, total / step.stepTimeS(), m.material(total, step.stepTimeS()));
    }

    /** No claims: for a rule that yields to no other diagnosis. */
    public static List<Claim> none() { return List.of(); }

    /** Every exposed second of what offload adds: the host's optimizer step and the copies over the host link. */
    public static List<Claim> offload(StepFact s) {
        List<Claim> out = new java.util.ArrayList<>(all(s, dev.trainadvisor.perf.Phase.HOST_OPTIMIZER));
        out.addAll(all(s, dev.trainadvisor.perf.Phase.OFFLOAD_COPIES));
        out.addAll(all(s, dev.trainadvisor.perf.Phase.OFFLOAD_UPDATE));
        return out;
    }

    /** Every exposed second of the host's optimizer step. */
    public static List<Claim> hostOptimizer(StepFact s) { return all(s, Phase.HOST_OPTIMIZER); }

    /** {@code values} when {@code condition} holds any fact, else nothing: a saving that counts only with its fault. */
    public static Collection<?> ifAny(Collection<?> condition, Collection<?> values) {
        return condition.isEmpty() ? List.of() : values;
    }

    /** The exposed seconds of these collectives (CollectiveFact), each as a claim on its own phase. */
    public static List<Claim> exposed(Collection<?> collectives) {
        List<Claim> out = new ArrayList<>();
        for (Object o : collectives) {
            CollectiveFact c = (CollectiveFact) o;
            if (c.exposedSeconds() > 0) out.add(new Claim(c.name(), c.exposedSeconds()));
        }
        return out;
    }

    /** Every saving's seconds by phase, together (Saving facts, in one or more collections). */
    public static List<Claim> saved(Collection<?>... savings) {
        List<Claim> out = new ArrayList<>();
        for (Collection<?> c : savings) for (Object o : c) out.addAll(((Saving) o).byPhase());
        return out;
    }

    /**
     * Of {@code savings}, those that restore a quantity one of {@code faults} (Fault facts) is about; each once, however
     * many faults (measured and fitted) are about its quantity.
     */
    public static List<Saving> restoring(Collection<?> faults, Collection<?> savings) {
        List<Saving> out = new ArrayList<>();
        for (Object s : savings) {
            Saving sv = (Saving) s;
            for (Object f : faults) {
                if (Saving.Kind.restoring(((Fault) f).param()) == sv.kind()) {
                    out.add(sv);
                    break;
                }
            }
        }
        return out;
    }

    /** {@code fraction} of the forward and backward compute. */
    public static List<Claim> ofCompute(StepFact s, double fraction) {
        List<Claim> out = new ArrayList<>();
        if (fraction <= 0) return out;
        out.add(new Claim(Phase.FORWARD, fraction * s.phase(Phase.FORWARD)));
        out.add(new Claim(Phase.BACKWARD, fraction * s.phase(Phase.BACKWARD)));
        return out;
    }

    /** All of one phase. */
    public static List<Claim> all(StepFact s, String phase) {
        double v = s.phase(phase);
        return v > 0 ? List.of(new Claim(phase, v)) : List.of();
    }

    /** {@code seconds} of one phase. */
    public static List<Claim> of(String phase, double seconds) {
        return seconds > 0 ? List.of(new Claim(phase, seconds)) : List.of();
    }
}
