package dev.trainadvisor.assemble;

import dev.trainadvisor.ingest.LogFormats;
import dev.trainadvisor.ingest.ParsedLog;
import dev.trainadvisor.input.InputFiles;
import dev.trainadvisor.input.SpecException;

import java.nio.file.Path;

/** The one place a log file is opened and handed to ingest (the {@code parse} command and a run file's {@code log:}). */
public final class Logs {
    private Logs() {}

    /**
     * What a log says, its format detected by content. Read whole through {@link InputFiles#readText} for now (bytes
     * that are not UTF-8 become U+FFFD); ingest's line-by-line reading takes this place.
     */
    public static ParsedLog read(Path file) {
        String text = InputFiles.readText(file, "a log file");
        try {
            return LogFormats.detectAndParse(text, file.toString());
        } catch (SpecException e) {
            if (text.indexOf('\uFFFD') < 0) throw e;
            throw new SpecException(e.file(), e.field(), e.expected() + "; nor is the file UTF-8 text (bytes that are "
                    + "not UTF-8 were read as U+FFFD): is it a log?");
        }
    }
}
