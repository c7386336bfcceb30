package dev.trainadvisor.ingest;

import dev.trainadvisor.input.InputFiles;
import dev.trainadvisor.input.SpecException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * A log to read, as cleaned lines (see {@link Lines}), in as many passes as a parser needs: a file of any size, opened
 * through {@link InputFiles} (a regular file only: a device or a pipe is refused, it may never end), or a string (tests,
 * and callers that hold the text already).
 *
 * <p>Memory stays bounded whatever the file's size: a pass holds one buffer of at most {@link #BUFFER} bytes (as many
 * as a smaller file needs) and the line it is at; detection reads the {@link #sample()} (at most the first
 * {@link #HEAD} and the last {@link #TAIL} bytes). Limits,
 * each with a message naming the file:
 * <ul>
 *   <li>a file larger than {@link #MAX_BYTES} is refused ({@link SpecException}, exit code 2), and so is one that grows
 *       past it while it is read (a log still being written is read to its end);</li>
 *   <li>a line longer than {@link #MAX_LINE} bytes (characters for a string) is cut to its first {@link #MAX_LINE}; the
 *       rest of it is skipped, and the parse says how many lines were cut ({@link #cutLines()}, a warning).</li>
 * </ul>
 * Text is UTF-8; a malformed byte reads as U+FFFD; a byte-order mark at the start is dropped.
 */
public final class LogSource {
    /** The largest log read: 64 GiB, about ten minutes at the parsers' 100+ MB/s. */
    public static final long MAX_BYTES = 64L << 30;
    /** Longer lines are cut to this many bytes (characters): no log prints a metric line of a megabyte. */
    public static final int MAX_LINE = 1 << 20;
    /** Detection reads the first MiB and the last 256 KiB: formats show in their first and last lines. */
    static final int HEAD = 1 << 20, TAIL = 1 << 18;
    /** A pass reads the file in chunks into a buffer that holds the longest line and one chunk. */
    static final int CHUNK = 1 << 20, BUFFER = MAX_LINE + CHUNK;
    /** The least a pass's buffer starts with (64 KiB). */
    static final int MIN_BUFFER = 1 << 16;

    private final Path file;
    private final String text;
    private final String name;
    private final long maxBytes;
    private String sample;
    private long cutLines;
    /** The bytes a pass's buffer starts with ({@link #firstBuffer()}); 0 until a pass asks. */
    private int firstBuffer;

    private LogSource(Path file, String text, String name, long maxBytes) {
        this.file = file;
        this.text = text;
        this.name = name;
        this.maxBytes = maxBytes;
    }

    /**
     * A log file: checked to be a regular file (not a device, pipe, socket or folder) of at most {@link #MAX_BYTES}.
     *
     * @throws SpecException naming the file otherwise
     */
    public static LogSource of(Path file) {
        return of(file, MAX_BYTES);
    }

    /** {@link #of(Path)} with another size limit (tests). */
    static LogSource of(Path file, long maxBytes) {
        InputFiles.requireRegularFile(file, "a training log");
        long size;
        try {
            size = Files.size(file);
        } catch (IOException e) {
            throw new SpecException(file.toString(), null, "a training log that can be read: " + e.getMessage());
        }
        if (size > maxBytes) throw tooLarge(file.toString(), maxBytes, size);
        return new LogSource(file, null, file.toString(), maxBytes);
    }

    /** A log held as text; {@code name} names it in messages. A leading byte-order mark is dropped. */
    public static LogSource of(String text, String name) {
        String t = text == null ? "" : text;
        if (t.startsWith("\uFEFF")) t = t.substring(1);
        return new LogSource(null, t, name == null ? "<text>" : name, Long.MAX_VALUE);
    }

    private static SpecException tooLarge(String name, long limit, long size) {
        return new SpecException(name, null, "a training log of at most " + bytes(limit) + "; this one is "
                + (size < 0 ? "larger" : bytes(size)) + " (cut it, e.g. with head or tail, to the part to diagnose)");
    }

    /** 64 GiB, 1.5 MiB, 300 bytes. */
    static String bytes(long n) {
        if (n < 1024) return n + " bytes";
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = n;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return (v == Math.rint(v) ? Long.toString((long) v) : String.format(java.util.Locale.ROOT, "%.1f", v)) + " " + units[u];
    }

    /** The file name, or the name given to a string. */
    public String name() { return name; }

    /** The file, or null for a string. */
    public Path file() { return file; }

    /** Lines cut at {@link #MAX_LINE} in the latest pass. */
    public long cutLines() { return cutLines; }

    /**
     * What detection reads: the first {@link #HEAD} bytes and the last {@link #TAIL} bytes, each cut at a line end (all
     * of it when the log is shorter than both). Read once and kept.
     */
    public String sample() {
        if (sample == null) sample = file == null ? sample(text) : fileSample();
        return sample;
    }

    /** The first MiB and the last 256 KiB of {@code text}, cut at line ends (all of it when shorter). */
    static String sample(String text) {
        if (text.length() <= HEAD + TAIL) return text;
        int headEnd = text.lastIndexOf('\n', HEAD - 1);
        if (headEnd < 0) headEnd = HEAD;
        int tailStart = text.indexOf('\n', text.length() - TAIL);
        if (tailStart < 0) tailStart = text.length() - TAIL;
        return text.substring(0, headEnd) + "\n" + text.substring(tailStart + 1);
    }

    private String fileSample() {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size <= HEAD + TAIL) return decode(read(ch, 0, (int) size), true);
            byte[] head = read(ch, 0, HEAD);
            int headEnd = lastIndexOf(head, (byte) '\n');
            byte[] tail = read(ch, size - TAIL, TAIL);
            int tailStart = indexOf(tail, (byte) '\n');
            String h = decode(head, headEnd < 0 ? head.length : headEnd, true);
            String t = new String(tail, tailStart + 1, tail.length - tailStart - 1, StandardCharsets.UTF_8);
            return h + "\n" + t;
        } catch (IOException e) {
            throw new SpecException(name, null, "a training log that can be read: " + e.getMessage());
        }
    }

    private static byte[] read(FileChannel ch, long at, int n) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(n);
        while (b.hasRemaining()) {
            int k = ch.read(b, at + b.position());
            if (k < 0) break;
        }
        return java.util.Arrays.copyOf(b.array(), b.position());
    }

    private static int lastIndexOf(byte[] b, byte c) {
        for (int i = b.length - 1; i >= 0; i--) if (b[i] == c) return i;
        return -1;
    }

    private static int indexOf(byte[] b, byte c) {
        for (int i = 0; i < b.length; i++) if (b[i] == c) return i;
        return -1;
    }

    private static String decode(byte[] b, boolean dropBom) {
        return decode(b, b.length, dropBom);
    }

    private static String decode(byte[] b, int n, boolean dropBom) {
        int from = dropBom && bom(b, 0, n) ? 3 : 0;
        return new String(b, from, n - from, StandardCharsets.UTF_8);
    }

    private static boolean bom(byte[] b, int at, int n) {
        return n - at >= 3 && b[at] == (byte) 0xEF && b[at + 1] == (byte) 0xBB && b[at + 2] == (byte) 0xBF;
    }

    /**
     * A new pass over the cleaned, non-blank lines (see {@link Lines}). Close it (try-with-resources) when a loop may
     * stop early; a pass read to its end closes itself.
     *
     * @throws SpecException naming the file when it cannot be read, or grows past {@link #MAX_BYTES} while it is
     */
    public Pass lines() {
        return file == null ? new StringPass(text) : new FilePass(InputFiles.open(file, "a training log"), firstBuffer());
    }

    /**
     * The bytes a pass's buffer starts with: the file's size and one (so that one read reaches its end), at least
     * {@link #MIN_BUFFER}, at most {@link #BUFFER}; it grows to {@link #BUFFER} while a longer line or a growing file
     * needs it. A parser reads a log in up to ten passes, and a buffer of {@link #BUFFER} bytes zeroed at each was most
     * of the time a batch took to read a log of ten kilobytes (450 us of CPU a log, 250 us with the buffer sized).
     */
    private int firstBuffer() {
        if (firstBuffer == 0) {
            long size;
            try {
                size = Files.size(file);
            } catch (IOException e) {
                size = BUFFER;   // the pass reports what it cannot read
            }
            firstBuffer = (int) Math.min(BUFFER, Math.max(MIN_BUFFER, size + 1));
        }
        return firstBuffer;
    }

    /** One pass: an iterator of lines that is its own Iterable (for a for-each loop) and is closed after use. */
    public abstract class Pass implements Iterator<String>, Iterable<String>, AutoCloseable {
        private String next;
        private long cut;

        @Override
        public Iterator<String> iterator() { return this; }

        @Override
        public boolean hasNext() {
            while (next == null) {
                if (!advance()) {
                    close();
                    return false;
                }
            }
            return true;
        }

        @Override
        public String next() {
            if (!hasNext()) throw new NoSuchElementException();
            String line = next;
            next = null;
            return line;
        }

        /** Sets the next line (null when it was blank) and returns true, or returns false at the end. */
        abstract boolean advance();

        void emit(String line) { next = line; }

        void cut() {
            cut++;
            cutLines = Math.max(cutLines, cut);
        }

        @Override
        public void close() {}
    }

    /** The lines of a string, split at {@code \n} and {@code \r}; each cut when it is cut, no list of all of them. */
    private final class StringPass extends Pass {
        private final String s;
        private final int n;
        private int pos;
        private int nextLf = -1, nextCr = -1, nextEsc = -1;

        StringPass(String s) {
            this.s = s;
            this.n = s.length();
        }

        @Override
        boolean advance() {
            if (pos > n) return false;
            int end = lineEnd();
            int start = pos;
            pos = end + 1;
            if (end - start > MAX_LINE) {
                end = start + MAX_LINE;
                cut();
            }
            emit(line(start, end));
            return true;
        }

        /** Index of the first {@code \n} or {@code \r} at or after pos, or n. */
        private int lineEnd() {
            if (nextLf < pos) nextLf = find('\n');
            if (nextCr < pos) nextCr = find('\r');
            return Math.min(nextLf, nextCr);
        }

        private int find(char c) {
            int i = s.indexOf(c, pos);
            return i < 0 ? n : i;
        }

        /** The cleaned line s[start, end), or null when it is blank. */
        private String line(int start, int end) {
            if (end <= start) return null;
            if (nextEsc < start) {
                int e = s.indexOf(LogText.ESC, start);
                nextEsc = e < 0 ? n : e;
            }
            if (nextEsc < end) return Lines.cleaned(s.substring(start, end));
            int from = LogText.prefixEnd(s, start, end);
            int k = from;
            while (k < end && Character.isWhitespace(s.charAt(k))) k++;
            return k == end ? null : s.substring(from, end);
        }
    }

    /**
     * The lines of a file, read in chunks into one buffer; each line is decoded from its bytes when the pass reaches it.
     * A line longer than {@link #MAX_LINE} is cut there and the rest of it skipped up to its end.
     */
    private final class FilePass extends Pass {
        private final InputStream in;
        private byte[] buf;
        private int pos, lim;
        private long read;
        private boolean eof, skipping, started, closed;

        FilePass(InputStream in, int buffer) {
            this.in = in;
            this.buf = new byte[buffer];
        }

        @Override
        boolean advance() {
            while (true) {
                int e = lineEnd(pos, lim);
                if (e >= 0) {
                    int start = pos;
                    pos = e + 1;
                    if (skipping) {
                        skipping = false;
                        continue;
                    }
                    emit(line(start, e));
                    return true;
                }
                // no line end in the buffer
                if (skipping) {
                    pos = lim;
                } else if (lim - pos >= MAX_LINE) {
                    int start = pos;
                    pos += MAX_LINE;
                    skipping = true;
                    cut();
                    emit(line(start, start + MAX_LINE));
                    return true;
                }
                if (eof) {
                    if (pos < lim && !skipping) {
                        int start = pos;
                        pos = lim;
                        emit(line(start, lim));
                        return true;
                    }
                    return false;
                }
                fill();
            }
        }

        /** Index of the first {@code \n} or {@code \r} in buf[from, to), or -1. */
        private int lineEnd(int from, int to) {
            byte[] b = buf;
            for (int i = from; i < to; i++) {
                byte c = b[i];
                if (c == '\n' || c == '\r') return i;
            }
            return -1;
        }

        /**
         * Moves the unread bytes to the front and reads a chunk after them, the buffer doubled (up to {@link #BUFFER})
         * where they fill it: at {@link #BUFFER} they never do, a line of {@link #MAX_LINE} bytes being cut first.
         */
        private void fill() {
            if (pos > 0) {
                System.arraycopy(buf, pos, buf, 0, lim - pos);
                lim -= pos;
                pos = 0;
            }
            if (lim == buf.length) buf = java.util.Arrays.copyOf(buf, (int) Math.min(BUFFER, 2L * buf.length));
            try {
                int want = Math.min(CHUNK, buf.length - lim);
                int k = in.read(buf, lim, want);
                if (k < 0) {
                    eof = true;
                    close();
                    return;
                }
                read += k;
                if (read > maxBytes) {
                    close();
                    throw tooLarge(name, maxBytes, -1);
                }
                if (!started) {
                    started = true;
                    if (bom(buf, lim, lim + k)) pos = lim + 3;
                }
                lim += k;
            } catch (IOException e) {
                close();
                throw new SpecException(name, null, "a training log that can be read: " + e.getMessage());
            }
        }

        /** The cleaned line buf[start, end), or null when it is blank; lines of spaces make no string. */
        private String line(int start, int end) {
            byte[] b = buf;
            int k = start;
            while (k < end && (b[k] == ' ' || b[k] == '\t')) k++;
            if (k == end) return null;
            boolean esc = false;
            for (int i = k; i < end; i++) {
                if (b[i] == LogText.ESC) {
                    esc = true;
                    break;
                }
            }
            String raw = new String(b, start, end - start, StandardCharsets.UTF_8);
            return esc ? Lines.cleaned(raw) : Lines.unprefixed(raw);
        }

        @Override
        public void close() {
            if (closed) return;
            closed = true;
            try {
                in.close();
            } catch (IOException ignored) {
                // nothing was written: a failed close loses nothing
            }
        }
    }
}
