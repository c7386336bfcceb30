package dev.trainadvisor.cli;

import java.io.OutputStream;
import java.io.PrintStream;

/**
 * The run `mvn package` lists the classes of the class-data archive from ({@code target/train-advisor.jsa}, which
 * {@code bin/train-advisor} maps at start: Java 17's static AppCDS, {@code -XX:DumpLoadedClassList}, then
 * {@code -Xshare:dump}): the commands a
 * user starts most, on the bundled examples, in one JVM, their output discarded, so that the classes they load are
 * archived already parsed and verified. Not a command; {@code java -cp target/train-advisor.jar
 * dev.trainadvisor.cli.ArchiveTraining} from the repository's root. Exits 2 where a command did not end in 0, which
 * fails the build: the examples are part of what is packaged.
 */
final class ArchiveTraining {
    private ArchiveTraining() {}

    static final String[][] COMMANDS = {
            {"advise", "examples/internlm-7b-pcie-1node.yaml", "--format", "md"},
            {"advise", "examples/internlm-7b-pcie-1node.yaml", "--format", "json"},
            {"advise", "examples/internlm-7b-pcie-1node.yaml", "--format", "html"},
            {"advise", "--log", "examples/logs/tinyllama-h200-trainer.log", "--cluster", "examples/logs/cluster-1xh200.yaml",
                    "--model", "examples/logs/model-tinyllama-1.1b.yaml", "--seq-len", "2048", "--micro-batch-size", "4"},
            {"catalog"},
            {"advise", "--help"},
    };

    public static void main(String[] args) {
        PrintStream out = System.out, err = System.err;
        PrintStream nowhere = new PrintStream(OutputStream.nullOutputStream());
        int failed = 0;
        for (String[] c : COMMANDS) {
            System.setOut(nowhere);
            System.setErr(nowhere);
            int code;
            try {
                code = Main.run(c);
            } finally {
                System.setOut(out);
                System.setErr(err);
            }
            if (code != 0) {
                err.println("class-data archive: `train-advisor " + String.join(" ", c) + "` exited " + code);
                failed++;
            }
        }
        if (failed > 0) System.exit(2);
    }
}
