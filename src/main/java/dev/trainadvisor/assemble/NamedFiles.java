package dev.trainadvisor.assemble;

import dev.trainadvisor.ingest.InternEvoConfig;
import dev.trainadvisor.ingest.ParsedLog;
import dev.trainadvisor.input.InputFiles;
import dev.trainadvisor.input.SpecException;

import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;

/**
 * The files a run file names, read through {@link InputFiles}: the name is relative to the run file, and a file that
 * cannot be opened is reported under the run file and the field that names it.
 */
final class NamedFiles {
    private NamedFiles() {}

    /** A named file's path and text. */
    record Text(Path path, String text) {}

    /** Where a name in {@code runFile} points: relative to the run file's folder unless absolute. */
    static Path resolve(String runFile, String name) {
        // an empty name would resolve to the run file's own folder, which a log may be (one log per rank): never meant
        if (name.isBlank())
            throw new SpecException(runFile, null, "a file name (relative to the run file's folder); got an empty string");
        Path named;
        try {
            named = Path.of(name);
        } catch (java.nio.file.InvalidPathException e) {
            throw new SpecException(runFile, null, "a file name; '" + name + "' is not one: " + e.getReason());
        }
        Path base = runFile == null ? null : Path.of(runFile).toAbsolutePath().getParent();
        return base == null || named.isAbsolute() ? named : base.resolve(named);
    }

    /** The text of the file {@code field} of {@code runFile} names, {@code what} it should be. */
    static Text text(String runFile, String field, String name, String what, Boundary boundary) {
        Path path = boundary.require(resolveIn(runFile, field, name), runFile, field, name);
        try {
            return new Text(path, InputFiles.readText(path, what));
        } catch (SpecException e) {
            throw new SpecException(runFile, field, e.expected() + " (" + dev.trainadvisor.input.Excerpt.of(path.toString()) + ")");
        }
    }

    private static Path resolveIn(String runFile, String field, String name) {
        try {
            return resolve(runFile, name);
        } catch (SpecException e) {
            throw new SpecException(runFile, field, e.expected());
        }
    }

    /** A log a run file names (a training log, a topology), {@code what} it should be, read by {@code logs}. */
    static ParsedLog log(String runFile, String field, String name, String what, Function<Path, ParsedLog> logs, Boundary boundary) {
        Path path = boundary.require(resolveIn(runFile, field, name), runFile, field, name);
        // a training log may be a folder of one log per rank (RankLogs)
        if (field.equals("log") && java.nio.file.Files.isDirectory(path)) {
            try {
                return logs.apply(path);
            } catch (SpecException e) {
                throw new SpecException(runFile, field, e.expected() + " (" + e.file() + ")");
            }
        }
        try {
            InputFiles.requireRegularFile(path, what);
        } catch (SpecException e) {
            throw new SpecException(runFile, field, e.expected() + " (" + dev.trainadvisor.input.Excerpt.of(path.toString()) + ")");
        }
        return logs.apply(path);
    }

    /** An InternEvo config file (configs/*.py, evaluated as data, never executed) as a log with only configuration. */
    static ParsedLog config(String runFile, String name, Boundary boundary) {
        Text config = text(runFile, "config", name, "an InternEvo config file", boundary);
        InternEvoConfig.Result r = InternEvoConfig.readWithWarnings(config.text());
        if (r.config().isEmpty())
            throw new SpecException(config.path().toString(), null, "an InternEvo config (model = dict(...), data = "
                    + "dict(...), parallel = ...); nothing usable was found");
        return new ParsedLog("internevo-config", 0, 0, Map.of(), null, r.config(), Map.of(), r.warnings());
    }
}
