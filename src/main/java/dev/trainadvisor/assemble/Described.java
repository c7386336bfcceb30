package dev.trainadvisor.assemble;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.JsonTrees;

import java.util.Map;

/**
 * Who described a run around its training log, which decides three things: how a value the user gave and one the log
 * prints that differ are settled, how a field is named in a message, and whom an error in a value the user gave
 * names. A file (a run file, a folder's {@code runs.yaml}) describes the same run as its log, so a difference is an
 * error naming both; an option of {@code advise --log} (or a value given in code, {@code api.TrainAdvisor.readLog}) is
 * the user correcting the log, so it wins, with a note naming the option.
 *
 * @param options the option (or the setter, in code) that set each run-file field the user gave; null for a file
 * @param files   of the sections given whole ({@code cluster}, {@code model}), the file each was read from
 * @param caller  how code names a run it built ({@code Run.builder()}); null for the command line, whose errors name
 *                the option
 */
public record Described(Map<String, String> options, Map<String, String> files, String caller) {
    static final Described FILE = new Described(null, Map.of(), null);

    /** The command line: the option that set each field; the file {@code --cluster} or {@code --model} named, if any. */
    public static Described commandLine(Map<String, String> options, Map<String, String> files) {
        return new Described(Map.copyOf(options), Map.copyOf(files), null);
    }

    /** Code: the setter that set each field; an error in one names {@code caller} and the field. */
    public static Described code(Map<String, String> setters, String caller) {
        return new Described(Map.copyOf(setters), Map.of(), caller);
    }

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

    /**
     * The error {@code e} of reading a run around {@code source} (the training log, or what a command calls the run it
     * builds from options), naming who gave the bad value where the user
     * did ({@code given}: the fields the user gave, before the log's were merged in; {@code printed}: the run-file
     * fields the log printed): an option's value names the option ({@code --zero-stage: an integer from 0 to 3, got
     * 5}); a field of the file {@code --cluster} or {@code --model} named, that file and its own field, as does one
     * missing from it that the log does not print either; a value given in code, the {@link #caller} and the field. A
     * value the log printed, or one derived or assumed, is still the log's.
     */
    public SpecException attribute(SpecException e, String source, JsonNode given, java.util.Set<String> printed) {
        if (!commandLine() || e.field() == null || !source.equals(e.file())) return e;
        String field = e.field(), by = null;
        for (String f : options.keySet())
            if ((field.equals(f) || field.startsWith(f + ".")) && (by == null || f.length() > by.length())) by = f;
        if (by == null) return e;
        // of a section the user gave (a preset's cluster, a file's model), a field they did not give came from the log
        // or the preset; or, missing from a file and not printed by the log, belongs in the file
        boolean theirs = field.equals(by) || JsonTrees.at(given, field) != null
                || files.containsKey(by) && !printed.contains(field);
        if (!theirs) return e;
        if (caller != null) return new SpecException(caller, field, e.expected());
        String file = files.get(by);
        if (file != null) return new SpecException(file, field.equals(by) ? null : field.substring(by.length() + 1), e.expected());
        return new SpecException(options.get(by), null, e.expected());
    }
}
