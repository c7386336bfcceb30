package dev.trainadvisor.pyliteral;

/** Python's None (a Java null cannot sit in the maps the evaluator builds). */
public enum PyNone {
    NONE;

    @Override
    public String toString() { return "None"; }
}
