package dev.trainadvisor.advice;

import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.Eq;
import dev.trainadvisor.facts.Evidence;
import dev.trainadvisor.facts.Explain;
import dev.trainadvisor.spec.ReferenceRun;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 8, item 6: every explanation checks out from the evidence it lists. For the example run files, the published
 * reference runs and 500 generated runs, this parses every number in every explanation on its own (it does not ask
 * facts.Explain what it wrote), recomputes every formula from the printed numbers to within 0.5%, and finds each
 * number among the diagnosis' evidence, within the precision it is printed with. It also checks that a diagnosis'
 * impact is the seconds it claims over the step, and that the claims of all diagnoses never add up past the step.
 *
 * <p>The parser is a tokenizer ({@link #tokens}) over whitespace-separated words and a recursive-descent evaluator
 * ({@link Eval}) for the left side of each " = ".
 */
class ExplanationsTest {

    /** Units written after a number and a space, and one of them in SI-ish units. */
    static final Map<String, Double> UNITS = Map.of("GB/s", 1e9, "GB", 1e9, "GFLOPs", 1e9, "TFLOPS", 1e12,
            "us", 1e-6, "ms", 1e-3, "s", 1.0, "GPUs", 1.0);

    /** Units written onto a number ("53%", "0.647x"); "x" is a plain ratio. */
    static final Map<String, Double> ATTACHED = Map.of("%", 0.01, "x", 1.0);

    /** Bare literals a formula may use as constants without a matching evidence item. */
    static final Set<String> CONSTANTS = Set.of("1", "2");

    static final Set<String> OPERATORS = Set.of("x", "/", "+", "-");

    /** A whole word that is a number, with a unit written onto it. */
    static final Pattern NUMBER = Pattern.compile("(-?\\d+(?:\\.\\d+)?)([%x]?)");

    /** What Fmt writes for a value that is not a number. */
    static final Set<String> NOT_A_NUMBER = Set.of("n/a", "inf", "-inf", "NaN", "Infinity", "-Infinity");

    static final double FORMULA_TOLERANCE = 0.005;

    // ---------------------------------------------------------------- tokens

    sealed interface Tok {}

    /** A number as printed ({@code text}, without its unit), its value as printed, and its unit ("" for none). */
    record Num(String text, double value, String unit) implements Tok {
        double si() { return value * (ATTACHED.containsKey(unit) ? ATTACHED.get(unit) : UNITS.getOrDefault(unit, 1.0)); }

        @Override
        public String toString() { return text + (unit.isEmpty() || ATTACHED.containsKey(unit) ? unit : " " + unit); }
    }

    /** An operator, a bracket or "=", each a word of its own in the text (surrounded by spaces). */
    record Sym(String s) implements Tok {}

    /** Any other word or punctuation: identifiers ("NVLink3", "A100-PCIe-80GB", "fa2") are words, not numbers. */
    record Word(String s) implements Tok {}

    /** The explanation without its trailing " [rule name]". */
    static String prose(String explanation) {
        return explanation.replaceFirst("\\s*\\[rule [^\\]]*\\]\\s*$", "");
    }

    /**
     * Splits the text at whitespace. A word is a number only when, stripped of opening brackets and closing brackets
     * and punctuation, it is all number ("53%", "0.647x" and "(12" are; "NVLink3", "sm80", "A100-PCIe-80GB",
     * "CUDA_DEVICE_MAX_CONNECTIONS=1" are identifiers, a letter, digit, '-', '_', '.' or '=' touching the digits).
     * A number takes the next word as its unit when that is one of {@link #UNITS}.
     */
    static List<Tok> tokens(String text) {
        List<Tok> out = new ArrayList<>();
        String[] words = text.strip().split("\\s+");
        for (int i = 0; i < words.length; i++) {
            String w = words[i];
            if (w.isEmpty()) continue;
            if (OPERATORS.contains(w) || w.equals("=")) {
                out.add(new Sym(w));
                continue;
            }
            int a = 0, b = w.length();
            while (a < b && w.charAt(a) == '(') {
                out.add(new Sym("("));
                a++;
            }
            while (b > a && ",;:.!?)".indexOf(w.charAt(b - 1)) >= 0) b--;
            String core = w.substring(a, b), tail = w.substring(b);
            Matcher m = NUMBER.matcher(core);
            if (m.matches()) {
                String unit = m.group(2);
                if (unit.isEmpty() && tail.isEmpty() && i + 1 < words.length) {
                    String next = words[i + 1];
                    int e = next.length();
                    while (e > 0 && ",;:.!?)".indexOf(next.charAt(e - 1)) >= 0) e--;
                    if (UNITS.containsKey(next.substring(0, e))) {
                        unit = next.substring(0, e);
                        tail = next.substring(e);
                        i++;
                    }
                }
                out.add(new Num(m.group(1), Double.parseDouble(m.group(1)), unit));
            } else if (!core.isEmpty()) {
                out.add(new Word(core));
            }
            for (char c : tail.toCharArray()) out.add(c == ')' ? new Sym(")") : new Word(String.valueOf(c)));
        }
        return out;
    }

    // ---------------------------------------------------------------- formulas

    /** A formula: the tokens of its left side and the number it comes to. */
    record Formula(List<Tok> left, Num right, int from, int to) {
        @Override
        public String toString() {
            StringBuilder s = new StringBuilder();
            for (Tok t : left) s.append(t instanceof Num n ? n.toString() : ((Sym) t).s()).append(' ');
            return s.append("= ").append(right).toString().replace("( ", "(").replace(" )", ")");
        }
    }

    /**
     * Every formula of the text: before each " = " followed by a number, the longest run of numbers, operators and
     * brackets. A run that starts with an operator or a closing bracket had a word in it ("(pp - 1) / (v x m)"), and is
     * not a formula. In "A = B = C" the second formula is "B = C".
     */
    static List<Formula> formulas(List<Tok> toks, List<String> problems) {
        List<Formula> out = new ArrayList<>();
        for (int i = 0; i < toks.size(); i++) {
            if (!(toks.get(i) instanceof Sym eq && eq.s().equals("="))) continue;
            if (i + 1 >= toks.size() || !(toks.get(i + 1) instanceof Num right)) {
                problems.add("'=' not followed by a number");
                continue;
            }
            int j = i, depth = 0;
            while (j > 0) {
                Tok t = toks.get(j - 1);
                if (t instanceof Sym s && s.s().equals(")")) depth++;
                else if (t instanceof Sym s && s.s().equals("(")) {
                    if (depth == 0) break;   // a bracket the formula does not close: not part of it
                    depth--;
                } else if (!(t instanceof Num || t instanceof Sym s && OPERATORS.contains(s.s()))) break;
                j--;
            }
            List<Tok> left = toks.subList(j, i);
            if (left.isEmpty() || depth != 0 || left.get(0) instanceof Sym s && !s.s().equals("(")) continue;
            out.add(new Formula(List.copyOf(left), right, j, i + 1));
        }
        return out;
    }

    /** Recursive descent over a formula's left side, in SI-ish units: x and / before + and -, left to right. */
    static final class Eval {
        private final List<Tok> toks;
        private int at;

        private Eval(List<Tok> toks) { this.toks = toks; }

        /** The value of {@code toks}, or NaN when they are not one whole expression. */
        static double of(List<Tok> toks) {
            Eval e = new Eval(toks);
            try {
                double v = e.sum();
                return e.at == toks.size() ? v : Double.NaN;
            } catch (IllegalStateException ex) {
                return Double.NaN;
            }
        }

        private double sum() {
            double v = product();
            while (peek("+") || peek("-")) v = next().equals("+") ? v + product() : v - product();
            return v;
        }

        private double product() {
            double v = factor();
            while (peek("x") || peek("/")) v = next().equals("x") ? v * factor() : v / factor();
            return v;
        }

        private double factor() {
            if (at >= toks.size()) throw new IllegalStateException("a term expected");
            Tok t = toks.get(at++);
            if (t instanceof Num n) return n.si();
            if (t instanceof Sym s && s.s().equals("(")) {
                double v = sum();
                if (!next().equals(")")) throw new IllegalStateException("')' expected");
                return v;
            }
            throw new IllegalStateException("a number or '(' expected");
        }

        private boolean peek(String op) { return at < toks.size() && toks.get(at) instanceof Sym s && s.s().equals(op); }

        private String next() {
            if (at >= toks.size() || !(toks.get(at) instanceof Sym s)) throw new IllegalStateException("an operator expected");
            at++;
            return s.s();
        }
    }

    /** Whether {@code a} and {@code b} agree to within a relative {@code tolerance}. */
    static boolean close(double a, double b, double tolerance) {
        return Math.abs(a - b) <= tolerance * Math.max(Math.abs(a), Math.abs(b));
    }

    // ---------------------------------------------------------------- numbers against the evidence

    /** Half a unit in the last printed digit; an integer's trailing zeros are not taken as printed digits ("1440"). */
    static double halfUnit(String printed) {
        int dot = printed.indexOf('.');
        if (dot >= 0) return 0.5 * Math.pow(10, -(printed.length() - dot - 1));
        int zeros = 0;
        while (zeros < printed.length() - 1 && printed.charAt(printed.length() - 1 - zeros) == '0') zeros++;
        return 0.5 * Math.pow(10, zeros);
    }

    /** The evidence unit a printed unit stands for: a count of GPUs is a plain count. */
    static String evidenceUnit(String printed) { return printed.equals("GPUs") ? "" : printed; }

    static boolean matches(Num n, Evidence e) {
        return e.unit().equals(evidenceUnit(n.unit()))
                && Math.abs(n.value() - e.value()) <= halfUnit(n.text()) + 1e-9 * Math.abs(e.value());
    }

    /** What one explanation came to: the numbers and formulas it holds, and what does not check out. */
    record Checked(int numbers, int formulas, List<String> problems) {}

    /** Checks one explanation against its evidence. */
    static Checked check(String explanation, List<Evidence> evidence) {
        List<String> problems = new ArrayList<>();
        List<Tok> toks = tokens(prose(explanation));
        List<Formula> fs = formulas(toks, problems);
        Set<Integer> inFormula = new HashSet<>();
        for (Formula f : fs) {
            for (int k = f.from(); k < f.to(); k++) inFormula.add(k);
            double left = Eval.of(f.left());
            if (Double.isNaN(left)) problems.add("formula does not parse: " + f);
            else if (!close(left, f.right().si(), FORMULA_TOLERANCE))
                problems.add(String.format("formula off by %.2f%%: %s (left side %.6g)", 100 * (left / f.right().si() - 1), f, left));
        }
        int numbers = 0;
        for (int k = 0; k < toks.size(); k++) {
            Tok t = toks.get(k);
            if (t instanceof Word w && NOT_A_NUMBER.contains(w.s())) problems.add("'" + w.s() + "' where a number belongs");
            if (!(t instanceof Num n)) continue;
            numbers++;
            if (inFormula.contains(k) && n.unit().isEmpty() && CONSTANTS.contains(n.text())) continue;
            if (evidence.stream().noneMatch(e -> matches(n, e))) problems.add("'" + n + "' is no evidence value");
        }
        return new Checked(numbers, fs.size(), problems);
    }

    // ---------------------------------------------------------------- the runs

    static final long SEED = 20240806L;

    static Map<String, RunSpec> runs() throws IOException {
        Map<String, RunSpec> out = new LinkedHashMap<>();
        SpecReader reader = new SpecReader();
        try (Stream<Path> files = Files.list(Path.of("examples"))) {
            for (Path p : files.filter(dev.trainadvisor.docs.ExampleFiles::isRunFile).sorted().toList())
                out.put(p.getFileName().toString(), reader.read(p));
        }
        for (ReferenceRun r : ReferenceRun.builtIn()) out.put("reference " + r.id(), r.spec());
        for (GeneratedRuns.Generated g : GeneratedRuns.generate(SEED, 500)) out.put(g.spec().name(), g.spec());
        return out;
    }

    @Test
    void everyExplanationChecksOutFromItsEvidence() throws IOException {
        Map<String, RunSpec> runs = runs();
        assertTrue(runs.size() >= 3 + 500 + 1, "examples, reference runs and 500 generated runs: " + runs.size());
        List<String> problems = new ArrayList<>();
        int diagnoses = 0, numbers = 0, formulas = 0;
        for (Map.Entry<String, RunSpec> run : runs.entrySet()) {
            Advice a = TrainAdvisor.advise(run.getValue());
            double claimed = 0;
            for (Diagnosis d : a.diagnoses()) {
                diagnoses++;
                String where = run.getKey() + " / " + d.id() + ": ";
                Checked c = check(d.explanation(), d.evidence());
                numbers += c.numbers();
                formulas += c.formulas();
                for (String p : c.problems()) problems.add(where + p + "\n    " + d.explanation());

                Set<String> names = new HashSet<>();
                for (Evidence e : d.evidence()) if (!names.add(e.name())) problems.add(where + "evidence '" + e.name() + "' listed twice");
                double step = d.evidence().stream().filter(e -> e.name().equals("step_time_s")).mapToDouble(Evidence::value)
                        .findFirst().orElse(a.fitted().stepTimeS());
                if (Math.abs(d.impactFraction() - d.claimedSeconds() / step) > 1e-9)
                    problems.add(where + "impact " + d.impactFraction() + " is not its claims " + d.claimedSeconds()
                            + " s over the " + step + " s step");
                // a cause the fit does not single out shares its seconds with unexplained-slowdown, which lists it
                // as one of its candidates: alternatives for the same seconds, not seconds added to them
                if (d.probability() >= Diagnosis.SURE) claimed += d.claimedSeconds();
            }
            if (claimed > a.fitted().stepTimeS() * (1 + 1e-12))
                problems.add(run.getKey() + ": the diagnoses claim " + claimed + " s of the " + a.fitted().stepTimeS() + " s step");
        }
        System.out.printf("ExplanationsTest: %d runs, %d diagnoses, %d numbers, %d formulas, %d problems%n",
                runs.size(), diagnoses, numbers, formulas, problems.size());
        assertTrue(formulas > 1000 && numbers > 10000, "too little parsed: " + numbers + " numbers, " + formulas + " formulas");
        assertTrue(problems.isEmpty(), problems.size() + " mismatches:\n" + String.join("\n", problems));
    }

    // ---------------------------------------------------------------- the parser on hand-written sentences

    static final List<Evidence> LINK = List.of(Evidence.of("calls", 586, ""), Evidence.of("alpha", 42.6, "us"),
            Evidence.of("factor", 0.875, ""), Evidence.of("bytes", 14.64, "GB"), Evidence.of("busbw", 9.984, "GB/s"),
            Evidence.of("seconds", 1.3081, "s"), Evidence.of("group_size", 8, ""));

    @Test
    void aCorrectFormulaChecksOut() {
        Checked c = check("zero-param-all-gather over 8 GPUs: 586 x 42.6 us + 0.875 x 14.64 GB / 9.984 GB/s = 1.308 s."
                + " [rule intra-node-bandwidth]", LINK);
        assertEquals(List.of(), c.problems());
        assertEquals(1, c.formulas());
        assertEquals(7, c.numbers());
    }

    @Test
    void aWrongResultOrAMissingTermFails() {
        List<Evidence> ev = new ArrayList<>(LINK);
        ev.add(Evidence.of("wrong", 1.29, "s"));
        // the transfer alone is 1.283 s: without the latency the formula does not come to 1.308 s (1.9% off); with it,
        // 1.29 s is 1.4% off
        assertFalse(check("0.875 x 14.64 GB / 9.984 GB/s = 1.308 s", ev).problems().isEmpty());
        assertFalse(check("586 x 42.6 us + 0.875 x 14.64 GB / 9.984 GB/s = 1.29 s", ev).problems().isEmpty());
    }

    @Test
    void precedenceBracketsAndChains() {
        List<Evidence> ev = List.of(Evidence.of("pp", 12, ""), Evidence.of("v", 1, ""), Evidence.of("m", 128, ""),
                Evidence.of("f", 0.0859375, ""));
        assertEquals(List.of(), check("idles (pp - 1) / (v x m) of the compute, (12 - 1) / (1 x 128) = 0.08594.", ev).problems());
        assertEquals(1, check("idles (pp - 1) / (v x m) of the compute, (12 - 1) / (1 x 128) = 0.08594.", ev).formulas());
        assertFalse(check("12 - 1 / 1 x 128 = 0.08594", ev).problems().isEmpty());
        assertEquals(2, formulas(tokens("(2 + 2) x 3 = 12 = 12"), new ArrayList<>()).size());
        assertFalse(check("(2 + 2) x 3 = 12 = 13", List.of(Evidence.of("a", 12, ""), Evidence.of("b", 13, ""),
                Evidence.of("three", 3, ""))).problems().isEmpty());
    }

    @Test
    void identifiersAreNotNumbers() {
        List<Tok> t = tokens("Train on NVLink3 (A100-PCIe-80GB) nodes: zero-param-all-gather with fa2 on sm80 over IB-HDR100,"
                + " CUDA_DEVICE_MAX_CONNECTIONS=1, FlashAttention-2.");
        assertTrue(t.stream().noneMatch(x -> x instanceof Num), t.toString());
    }

    @Test
    void unitsConvert() {
        List<Tok> t = tokens("(probability 53%) at 0.647x, 17.1 us, 2 ms, 9.19 GB/s, 14.6 GB, 1082 GFLOPs, 149 TFLOPS, 8 GPUs.");
        assertEquals(List.of(new Num("53", 53, "%"), new Num("0.647", 0.647, "x"), new Num("17.1", 17.1, "us"),
                new Num("2", 2, "ms"), new Num("9.19", 9.19, "GB/s"), new Num("14.6", 14.6, "GB"), new Num("1082", 1082, "GFLOPs"),
                new Num("149", 149, "TFLOPS"), new Num("8", 8, "GPUs")), t.stream().filter(x -> x instanceof Num).toList());
        assertEquals(List.of(), check("19.2 s / 136.6 s = 14.06%", List.of(Evidence.of("a", 19.2, "s"),
                Evidence.of("b", 136.6, "s"), Evidence.of("c", 14.056, "%"))).problems());
        assertEquals(List.of(), check("149 TFLOPS x 1082 GFLOPs / 1436 GFLOPs = 112.3 TFLOPS", List.of(
                Evidence.of("a", 149, "TFLOPS"), Evidence.of("b", 1082, "GFLOPs"), Evidence.of("c", 1436, "GFLOPs"),
                Evidence.of("d", 112.27, "TFLOPS"))).problems());
        assertEquals(List.of(), check("1172 x 42.6 us = 49.93 ms", List.of(Evidence.of("a", 1172, ""),
                Evidence.of("b", 42.6, "us"), Evidence.of("c", 49.93, "ms"))).problems());
    }

    @Test
    void explainWritesADifferenceThatCancelsWithTheDigitsItsResultNeeds() {
        // four digits each, "129.4 s - 120.2 s" would come to 9.2 s where the result is 9.281 s: 0.9% off
        Explain e = Explain.start().text("Of these, ").eq(Eq.minus(Eq.v("exposed", 129.4321, "s"), Eq.v("before", 120.1514, "s")),
                "claimed", 129.4321 - 120.1514, "s").text(" are its own.");
        assertEquals("Of these, 129.432 s - 120.151 s = 9.281 s are its own.", e.text());
        assertEquals(List.of(), check(e.text(), e.evidence()).problems());
        assertFalse(check("Of these, 129.4 s - 120.2 s = 9.281 s are its own.", e.evidence()).problems().isEmpty());
    }

    @Test
    void everyNumberMustBeEvidenceInItsUnitAndPrecision() {
        List<Evidence> ev = List.of(Evidence.of("gpus", 8, ""), Evidence.of("share", 53.4, "%"), Evidence.of("r", 0.6474, "x"),
                Evidence.of("g", 1436, "GFLOPs"));
        assertEquals(List.of(), check("8 GPUs, 53%, 0.647x, 1440 GFLOPs", ev).problems());
        assertEquals(1, check("8 GPUs, 54%, 0.647x", ev).problems().size());      // 53.4% is not 54%
        assertEquals(1, check("8 s, 53%, 0.647x", ev).problems().size());         // 8 is a count, not seconds
        assertEquals(1, check("0.647, 53%", ev).problems().size());               // a ratio printed without its x
        assertEquals(2, check("tiles of 128 x 128", ev).problems().size());       // no evidence for either 128
        assertEquals(1, check("the step took n/a", ev).problems().size());
    }
}
