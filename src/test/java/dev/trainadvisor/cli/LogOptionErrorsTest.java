package dev.trainadvisor.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A bad value given to `advise --log` names what the user gave it with (the option, or the file --cluster or --model
 * named), not the training log, which printed none of it (exit 2, one line). The expected lines are written out: the
 * option, then what SpecReader expects of the field.
 */
class LogOptionErrorsTest {
    static final String LOG = "examples/logs/tinyllama-h200-trainer.log", CLUSTER = "examples/logs/cluster-1xh200.yaml",
            MODEL = "examples/logs/model-tinyllama-1.1b.yaml";

    @TempDir
    Path tmp;

    static CliAccess.Result advise(String... more) {
        String[] args = new String[6 + more.length];
        System.arraycopy(new String[]{"advise", "--log", LOG, "--seq-len", "2048", "--format=md"}, 0, args, 0, 6);
        System.arraycopy(more, 0, args, 6, more.length);
        return CliAccess.run(args);
    }

    static void refused(String line, CliAccess.Result r) {
        assertEquals(2, r.code(), r.err());
        assertEquals(line, r.err().strip());
    }

    @Test
    void anOptionsBadValueNamesTheOption() {
        refused("error: --zero-stage: an integer from 0 to 3, got 5",
                advise("--cluster", CLUSTER, "--model", MODEL, "--micro-batch-size", "4", "--zero-stage", "5"));
        refused("error: --nodes: a positive integer (1 to 1048576), got 0",
                advise("--cluster", CLUSTER, "--model", MODEL, "--micro-batch-size", "4", "--nodes", "0"));
    }

    @Test
    void anUnknownPresetNamesTheOptionAndTheNearestPresets() {
        refused("error: --cluster: a known cluster preset, got 'dgx-a100'; nearest known: dgx-a100-80gb",
                advise("--cluster", "dgx-a100", "--model", MODEL, "--micro-batch-size", "4"));
        CliAccess.Result r = advise("--cluster", CLUSTER, "--model", "llama-2-7c", "--micro-batch-size", "4");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("error: --model: a known model preset, got 'llama-2-7c'; nearest known: llama-2-7b"), r.err());
    }

    /** A path with no file at it is not an unknown preset: the option says no file is there (a typo in its name). */
    @Test
    void aFileThatIsNotThereIsSaidToBeMissing() {
        refused("error: --cluster: a preset or a JSON/YAML file of the cluster's fields; no file is at "
                + "'examples/logs/cluster-1xh200.yml'", advise("--cluster", "examples/logs/cluster-1xh200.yml", "--model", MODEL));
        refused("error: --model: a preset or a JSON/YAML file of the model's fields; no file is at 'examples/logs' (a folder)",
                advise("--cluster", CLUSTER, "--model", "examples/logs"));
    }

    /** A run file holds its model's fields; one that names a file for them is told so, not offered presets. */
    @Test
    void aRunFileThatNamesAModelFileIsToldToHoldItsFields() throws Exception {
        Path run = tmp.resolve("run.yaml");
        Files.writeString(run, "cluster: dgx-h100\nmodel: " + MODEL + "\ntraining: {seq_len: 2048, micro_batch_size: 1}\n");
        CliAccess.Result r = CliAccess.run("advise", run.toString());
        refused("error: " + run + ": field 'model': a known model preset, or the model's fields written here; got '" + MODEL
                + "', a file's name: a run file holds the fields themselves (copy them here), and --model reads a file only "
                + "where one is at that path", r);
    }

    @Test
    void aClusterOrModelFilesOwnFieldNamesTheFile() throws Exception {
        Path cluster = tmp.resolve("cluster.yaml");
        Files.writeString(cluster, "gpu: H200-SXM-141G\nnodes: 1\ngpus_per_node: 1\n");
        refused("error: " + cluster + ": field 'gpu': a known GPU key, got 'H200-SXM-141G'; nearest known: H200-SXM-141GB",
                advise("--cluster", cluster.toString(), "--model", MODEL, "--micro-batch-size", "4"));
        Path model = tmp.resolve("model.yaml");
        Files.writeString(model, Files.readString(Path.of(MODEL)).replace("\nhidden:", "\nhiden:"));
        CliAccess.Result r = advise("--cluster", CLUSTER, "--model", model.toString(), "--micro-batch-size", "4");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("error: " + model + ": field 'hiden': unknown key"), r.err());
    }

    @Test
    void aFieldMissingFromTheClusterFileNamesTheFile() throws Exception {
        Path cluster = tmp.resolve("cluster.yaml");
        Files.writeString(cluster, "nodes: 1\ngpus_per_node: 1\n");   // no gpu, and the Trainer's log prints none
        CliAccess.Result r = advise("--cluster", cluster.toString(), "--model", MODEL, "--micro-batch-size", "4");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("error: " + cluster + ": field 'gpu': a GPU (a catalogue key"), r.err());
    }
}
