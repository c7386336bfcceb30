package dev.trainadvisor.pyliteral;

/** Why an expression could not be evaluated; {@code at} is the token index (for the line number). */
final class Bad extends RuntimeException {
    final int at;

    Bad(String message, int at) {
        super(message, null, false, false);
        this.at = at;
    }
}
