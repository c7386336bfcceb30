package dev.trainadvisor.docs;

import java.nio.file.Path;

/**
 * Which YAML files of examples/ and the test resources are run files. examples/ also holds what the README's quick
 * starts name beside them: a folder's runs.yaml (log names to run-file keys, for batch) and the cluster and model files
 * of the advise --log walkthrough (examples/logs/cluster-*.yaml, model-*.yaml), which are parts of a run file, not one.
 */
public final class ExampleFiles {
    private ExampleFiles() {}

    /** A run file: YAML, and none of the files that only describe part of a run. */
    public static boolean isRunFile(Path p) {
        String name = p.getFileName().toString();
        return name.endsWith(".yaml") && !name.equals("runs.yaml") && !name.startsWith("cluster-") && !name.startsWith("model-");
    }
}
