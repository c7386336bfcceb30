package dev.trainadvisor.spec;

import dev.trainadvisor.input.SpecException;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.stream.Stream;

/**
 * A published, measured run (knowledge-base/reference-runs/*.json) with its source.
 *
 * @param split "tune" when the model's constants were set on it, "holdout" when it was kept aside to check them
 * @param excluded why the run is left out of averages and calibration, or null
 */
public record ReferenceRun(String id, String source, String sourceGroup, String split, String notes, RunSpec spec,
                           String excluded) {

    /** Whether the run is kept out of averages and calibration (the model cannot express it; {@link #excluded} says why). */
    public boolean isExcluded() { return excluded != null; }

    /** The reference runs shipped on the classpath, in file then row order. */
    public static List<ReferenceRun> builtIn() {
        List<ReferenceRun> out = new ArrayList<>();
        SpecReader reader = new SpecReader();
        for (String f : Resources.list("knowledge-base/reference-runs", ".json"))
            out.addAll(parse(Catalog.read(f), f, reader::read));
        return out;
    }

    /** The reference runs of one file, or of every *.json in a folder, whose runs name no other file. */
    public static List<ReferenceRun> read(Path fileOrDir) {
        SpecReader reader = new SpecReader();
        return read(fileOrDir, reader::read);
    }

    /**
     * The reference runs of one file, or of every *.json in a folder, each run read by {@code runReader} (the
     * command line passes the reader that also reads the logs, configs and measurements a run names).
     */
    public static List<ReferenceRun> read(Path fileOrDir, BiFunction<JsonNode, String, RunSpec> runReader) {
        List<Path> files;
        if (Files.isDirectory(fileOrDir)) {
            try (Stream<Path> s = Files.list(fileOrDir)) {
                files = s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
            } catch (IOException e) {
                throw new SpecException(fileOrDir.toString(), null, "a readable folder: " + e.getMessage());
            }
        } else {
            files = List.of(fileOrDir);
        }
        List<ReferenceRun> out = new ArrayList<>();
        for (Path f : files) out.addAll(parse(SpecReader.parse(f, dev.trainadvisor.input.InputFiles.MAX_WHOLE_FILE_BYTES), f.toString(), runReader));
        return out;
    }

    static List<ReferenceRun> parse(JsonNode root, String file, BiFunction<JsonNode, String, RunSpec> runReader) {
        Fields top = new Fields(file, "", root);
        JsonNode runs = root.get("runs");
        if (runs == null || !runs.isArray()) throw top.error("runs", "a list of reference runs");
        String group = top.requireString("source_group");
        List<ReferenceRun> out = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            Fields r = new Fields(file, "runs[" + i + "]", runs.get(i));
            String id = r.requireString("id");
            String split = r.string("split", "tune");
            if (!split.equals("tune") && !split.equals("holdout")) throw r.error("split", "tune or holdout, got '" + split + "'");
            if (r.raw("run") == null) throw r.error("run", "the run file of this reference run");
            RunSpec spec = runReader.apply(r.raw("run"), file + "#" + id);
            out.add(new ReferenceRun(id, r.string("source", ""), group, split, r.string("notes", ""), spec,
                    r.string("excluded", null)));
        }
        return out;
    }
}
