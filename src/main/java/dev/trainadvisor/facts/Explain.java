package dev.trainadvisor.facts;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds a diagnosis' explanation and its evidence together: every number written into the text is an evidence
 * value under a name, and every formula ({@link #eq}) is written whole, with the value it comes to, so the text
 * is rendered from the evidence it lists and checks out from it.
 *
 * <pre>{@code
 * Explain e = Explain.start().text("The step takes ").num("step_time_s", 7.27, "s").text(".");
 * }</pre>
 */
public final class Explain {
    private final StringBuilder text = new StringBuilder();
    private final Map<String, Evidence> evidence = new LinkedHashMap<>();

    private Explain() {}

    public static Explain start() { return new Explain(); }

    /** Plain words. They carry no number of their own: numbers go through {@link #num} and {@link #eq}. */
    public Explain text(String words) {
        text.append(words);
        return this;
    }

    /** A value, written with three significant digits and its unit ("9.12 GB/s", "7.27 s", "8 GPUs"). */
    public Explain num(String name, double value, String unit) {
        put(name, value, unit);
        text.append(Fmt.num(value)).append(unit.isEmpty() ? "" : space(unit) + unit);
        return this;
    }

    /** A count, written as an integer. */
    public Explain count(String name, long n) {
        put(name, n, "");
        text.append(n);
        return this;
    }

    /** A fraction written as a percentage ("53%"), listed as evidence in percent. */
    public Explain pct(String name, double fraction) {
        put(name, fraction * 100, "%");
        text.append(Fmt.pct(fraction));
        return this;
    }

    /** A ratio written as "0.647x". */
    public Explain times(String name, double ratio) {
        put(name, ratio, "x");
        text.append(Fmt.num(ratio)).append('x');
        return this;
    }

    /**
     * A formula and what it comes to: "0.875 x 14.64 GB / 9.116 GB/s = 1.405 s". Four significant digits each; the two
     * values of a difference that cancels get the digits its result needs ({@link #digits(Eq, double)}).
     */
    public Explain eq(Eq formula, String name, double result, String unit) {
        render(formula, false, 4);
        text.append(" = ");
        put(name, result, unit);
        text.append(Fmt.num(result, 4)).append(unit.isEmpty() ? "" : space(unit) + unit);
        return this;
    }

    /**
     * Writes a formula with the usual precedence: x and / before + and -, left to right; brackets where needed. Values
     * with {@code digits} significant digits.
     */
    private void render(Eq e, boolean brackets, int digits) {
        if (brackets) text.append('(');
        if (e instanceof Eq.Value v) {
            put(v.name(), v.value(), v.unit());
            text.append(Fmt.num(v.value(), digits)).append(v.unit().isEmpty() ? "" : space(v.unit()) + v.unit());
        } else if (e instanceof Eq.Op o) {
            boolean multiplicative = o.op().equals("x") || o.op().equals("/");
            double result = sum(o);
            render(o.left(), multiplicative && additive(o.left()), digits(o.left(), result));
            text.append(' ').append(o.op()).append(' ');
            boolean right = (multiplicative && additive(o.right())) || (o.op().equals("/") && o.right() instanceof Eq.Op)
                    || (o.op().equals("-") && additive(o.right()));
            render(o.right(), right, digits(o.right(), result));
        }
        if (brackets) text.append(')');
    }

    /** What a sum or difference of two values of one unit comes to; NaN for any other formula. */
    private static double sum(Eq.Op o) {
        if (!additive(o) || !(o.left() instanceof Eq.Value a && o.right() instanceof Eq.Value b) || !a.unit().equals(b.unit()))
            return Double.NaN;
        return o.op().equals("+") ? a.value() + b.value() : a.value() - b.value();
    }

    /**
     * The significant digits of a value in a sum or difference that comes to {@code result}: four, or as many as put
     * its last digit where the result's fourth is, so that a difference that cancels still checks out ("129.432 s -
     * 120.151 s = 9.281 s", where "129.4 s - 120.2 s" would come to 9.2 s, 0.9% off).
     */
    private static int digits(Eq term, double result) {
        if (!(term instanceof Eq.Value v) || Double.isNaN(result) || result == 0 || v.value() == 0 || !Double.isFinite(v.value()))
            return 4;
        int extra = exponent(v.value()) - exponent(result);
        return Math.min(15, 4 + Math.max(0, extra));
    }

    private static int exponent(double x) { return (int) Math.floor(Math.log10(Math.abs(x))); }

    private static boolean additive(Eq e) {
        return e instanceof Eq.Op o && (o.op().equals("+") || o.op().equals("-"));
    }

    private static String space(String unit) { return unit.equals("%") || unit.equals("x") ? "" : " "; }

    private void put(String name, double value, String unit) {
        Evidence prev = evidence.get(name);
        if (prev != null && (Double.compare(prev.value(), value) != 0 || !prev.unit().equals(unit)))
            throw new IllegalStateException("evidence '" + name + "' given twice with different values: " + prev.value()
                    + " " + prev.unit() + " and " + value + " " + unit);
        evidence.put(name, Evidence.of(name, value, unit));
    }

    /** Adds a value to the evidence without writing it. */
    public Explain also(String name, double value, String unit) {
        put(name, value, unit);
        return this;
    }

    public String text() { return text.toString(); }

    public List<Evidence> evidence() { return new ArrayList<>(evidence.values()); }
}
