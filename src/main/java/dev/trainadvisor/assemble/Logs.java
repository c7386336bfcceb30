package dev.trainadvisor.assemble;

import dev.trainadvisor.ingest.LogFormats;
import dev.trainadvisor.ingest.ParsedLog;

import java.nio.file.Path;

/** The one place a log file is opened and handed to ingest (the {@code parse} command and a run file's {@code log:}). */
public final class Logs {
    private Logs() {}

    /**
     * What a log says, its format detected by content, read as a stream of lines (ingest.LogSource: a regular file,
     * memory bounded whatever its size; bytes that are not UTF-8 become U+FFFD, and a file of no known format that is
     * not UTF-8 text is said to be so). A folder is read as one log per rank (RankLogs).
     */
    public static ParsedLog read(Path file) { return read(file, Boundary.NONE); }

    /** As {@link #read(Path)}; a folder's per-rank files that lead outside {@code boundary} are not read. */
    static ParsedLog read(Path file, Boundary boundary) {
        if (java.nio.file.Files.isDirectory(file)) return RankLogs.read(file, boundary);
        return LogFormats.read(file);
    }
}
