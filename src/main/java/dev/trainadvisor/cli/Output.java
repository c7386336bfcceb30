package dev.trainadvisor.cli;

import dev.trainadvisor.input.SpecException;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Writes a report to a file or to standard output. */
final class Output {
    private Output() {}

    static void write(String text, Path out, PrintWriter stdout) {
        if (out == null) {
            stdout.print(text);
            stdout.flush();
            return;
        }
        try {
            Path parent = out.toAbsolutePath().getParent();
            if (parent != null) Files.createDirectories(parent);
            Files.writeString(out, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new SpecException(out.toString(), null, "a writable output file: " + e.getMessage());
        }
    }
}
