package dev.trainadvisor.pyliteral;

/** A dict entry whose value could not be evaluated (already warned about): not the same as an absent key. */
public enum Skipped {
    SKIPPED;

    @Override
    public String toString() { return "<not evaluated>"; }
}
