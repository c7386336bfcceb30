package dev.trainadvisor.facts;

/**
 * The left side of a formula in an explanation: values with their units, and x, /, +, - between them. Rendered with
 * four significant digits, so a reader (and ExplanationsTest) can redo the arithmetic from the printed numbers to
 * within 0.5%; every value is listed as evidence under its name.
 */
public sealed interface Eq {

    /** A value of the evidence, in the unit it is printed in. */
    record Value(String name, double value, String unit) implements Eq {}

    /** Two terms joined by an operator: one of "x", "/", "+", "-". */
    record Op(Eq left, String op, Eq right) implements Eq {}

    static Eq v(String name, double value, String unit) { return new Value(name, value, unit); }

    static Eq times(Eq a, Eq b) { return new Op(a, "x", b); }

    static Eq div(Eq a, Eq b) { return new Op(a, "/", b); }

    static Eq plus(Eq a, Eq b) { return new Op(a, "+", b); }

    static Eq minus(Eq a, Eq b) { return new Op(a, "-", b); }
}
