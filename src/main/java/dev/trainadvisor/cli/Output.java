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

    /**
     * Where a report streams: the file (its folder made), or standard output, which closing the writer only flushes.
     */
    static java.io.Writer open(Path out, PrintWriter stdout) {
        if (out == null) return new java.io.FilterWriter(stdout) {
            @Override
            public void close() { stdout.flush(); }
        };
        try {
            Path parent = out.toAbsolutePath().getParent();
            if (parent != null) Files.createDirectories(parent);
            return Files.newBufferedWriter(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new SpecException(out.toString(), null, "a writable output file: " + e.getMessage());
        }
    }

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
