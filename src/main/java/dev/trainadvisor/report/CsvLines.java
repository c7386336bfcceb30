package dev.trainadvisor.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A CSV batch's lines, each added as its run comes and written ranked once the last has come (the bytes of
 * {@link BatchTable#csv()} of the ranked rows). The ranking needs every line, but not every line's text in memory: the
 * first {@link #HELD_CHARS} of text are held, and past them each line's text goes to a temporary file, of which the
 * line keeps where it lies. A fleet of
 * bench/fleet.py's million runs writes some 240 MB of CSV: held whole, with the one string it was written out as,
 * it took more than the batch's 768 MB heap; so it keeps some 50 bytes a line and 16 MiB of text. The file is opened
 * to be deleted when closed (on Linux Java unlinks it at once, and the channel alone keeps it: a batch that is killed
 * leaves nothing behind).
 */
final class CsvLines implements AutoCloseable {
    /**
     * Characters of the lines' text held in memory: 16 MiB, some 70,000 lines of bench/fleet.py's fleet (the 10,000-run
     * benchmark's are held whole); the rest are read back from the file once, which costs a million lines about a
     * second, where holding them costs their whole text for the batch's length.
     */
    static final long HELD_CHARS = 16L << 20;

    private final long heldChars;
    private final List<BatchTable.Line> lines = new ArrayList<>();
    private long held;
    private Path path;
    private FileChannel file;
    private long written;

    CsvLines() { this(HELD_CHARS); }

    /** {@code heldChars}: the text held in memory before lines go to the file (tests make it small). */
    CsvLines(long heldChars) { this.heldChars = heldChars; }

    /** The next run's line. */
    void add(BatchTable.Line line) throws IOException {
        String text = line.csv();
        if (file == null && held + text.length() <= heldChars) {
            held += text.length();
            lines.add(line);
            return;
        }
        if (file == null) {
            path = Files.createTempFile("train-advisor-batch-", ".csv");
            file = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    StandardOpenOption.DELETE_ON_CLOSE);
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) written += file.write(b, written);
        lines.add(line.movedTo(written - bytes.length, bytes.length));
    }

    /** The file the lines' text went to past what is held; null while none went. */
    Path file() { return path; }

    /** The header and the lines, ranked ({@link BatchTable#LINE_RANKING}: the order of {@link BatchTable#ranked}). */
    void writeRanked(Writer out) throws IOException {
        lines.sort(BatchTable.LINE_RANKING);
        out.write(BatchTable.csvHeader());
        for (BatchTable.Line l : lines) out.write(l.csv() != null ? l.csv() : read(l.at(), l.bytes()));
    }

    private String read(long at, int bytes) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(bytes);
        while (b.hasRemaining()) {
            if (file.read(b, at + b.position()) < 0) throw new IOException(path + ": ended before its lines");
        }
        return new String(b.array(), StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        if (file == null) return;
        try {
            file.close();   // DELETE_ON_CLOSE
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            file = null;
        }
    }
}
