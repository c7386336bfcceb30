package dev.trainadvisor.assemble;

import java.util.Map;

/**
 * Who described a run around its training log, which decides two things: how a value the user gave and one the log
 * prints that differ are settled, and how a field is named in a message. A file (a run file, a folder's
 * {@code runs.yaml}) describes the same run as its log, so a difference is an error naming both; an option of
 * {@code advise --log} is the user correcting the log, so it wins, with a note naming the option.
 *
 * @param options for the command line, the option that set each run-file field it gave; null for a file
 */
record Described(Map<String, String> options) {
    static final Described FILE = new Described(null);

    boolean commandLine() { return options != null; }

    /** How the user sets {@code field}: its option ("--zero-stage"), or the run-file field itself. */
    String setBy(String field) {
        if (!commandLine()) return field;
        String option = LogInference.OPTIONS.get(field);
        if (option != null) return option;
        return "--" + field.substring(0, field.contains(".") ? field.indexOf('.') : field.length());
    }

    /** What the note of a command-line value that replaces the log's says of it: "--micro-batches 2", "--model (model.layers 32)". */
    String gave(String field, String value) {
        return options.containsKey(field) ? options.get(field) + " " + value : setBy(field) + " (" + field + " " + value + ")";
    }
}
