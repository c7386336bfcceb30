package dev.trainadvisor.input;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The one way train-advisor opens what the user names: a regular file (not a device, a pipe or a folder, which would
 * hang or never end), of a bounded size where it is read whole, with every failure a {@link SpecException} naming the
 * file (exit code 2).
 */
public final class InputFiles {
    private InputFiles() {}

    /** Run files, model and cluster files, configs and rule files are read whole: at most this many bytes. */
    public static final long MAX_WHOLE_FILE_BYTES = 64L << 20;

    /**
     * The file, checked to be a regular file that exists and can be read.
     *
     * @param what what the file should be ("a run file", "a training log"), for the message
     */
    public static Path requireRegularFile(Path file, String what) {
        regularFile(file, what);
        return file;
    }

    /**
     * {@link #requireRegularFile}'s checks from one read of the file's attributes (links followed), which are returned:
     * a batch reads thousands of files, and asking exists, is-a-folder, is-regular and the size one by one took four
     * system calls a file where this takes one (with the access check, two).
     */
    private static java.nio.file.attribute.BasicFileAttributes regularFile(Path file, String what) {
        java.nio.file.attribute.BasicFileAttributes a;
        try {
            a = Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class);
        } catch (IOException e) {
            // what Files.exists says of a file whose attributes cannot be read: it does not exist
            throw new SpecException(file.toString(), null, what + "; it does not exist");
        }
        if (a.isDirectory()) throw new SpecException(file.toString(), null, what + "; this is a folder");
        if (!a.isRegularFile())
            throw new SpecException(file.toString(), null, what + "; not a regular file (a device, pipe or socket is "
                    + "not read: it may never end)");
        if (!Files.isReadable(file)) throw new SpecException(file.toString(), null, what + "; the file cannot be read");
        return a;
    }

    /**
     * A small file's text (UTF-8, malformed bytes replaced; a leading byte-order mark dropped), refused above
     * {@link #MAX_WHOLE_FILE_BYTES}.
     */
    public static String readText(Path file, String what) {
        byte[] bytes = readBytes(file, what);
        try {
            return withoutBom(decodeStrictly(bytes));
        } catch (CharacterCodingException e) {
            // a log or config with stray bytes is still read: each bad byte becomes U+FFFD
            return withoutBom(new String(bytes, StandardCharsets.UTF_8));
        }
    }

    /**
     * A small file's text, which must be UTF-8 (a run file, a model or cluster file, a rule file): malformed bytes are
     * an error naming the file. A leading byte-order mark (Windows editors write one) is dropped.
     */
    public static String readUtf8(Path file, String what) { return readUtf8(file, what, MAX_WHOLE_FILE_BYTES); }

    /** As {@link #readUtf8(Path, String)}, refused above {@code maxBytes}. */
    public static String readUtf8(Path file, String what, long maxBytes) {
        try {
            return withoutBom(decodeStrictly(readBytes(file, what, maxBytes)));
        } catch (CharacterCodingException e) {
            throw new SpecException(file.toString(), null, what + " in UTF-8 text; the file is not valid UTF-8");
        }
    }

    /** The bytes of a regular file of at most {@link #MAX_WHOLE_FILE_BYTES}. */
    private static byte[] readBytes(Path file, String what) { return readBytes(file, what, MAX_WHOLE_FILE_BYTES); }

    /**
     * The bytes of a regular file of at most {@code maxBytes}: the size is checked before anything is read, and the
     * read stops past the limit (a file that grows while it is read is refused too).
     */
    private static byte[] readBytes(Path file, String what, long maxBytes) {
        long size = regularFile(file, what).size();
        try {
            if (size > maxBytes) throw tooLarge(file, what, maxBytes, size);
            try (InputStream in = Files.newInputStream(file)) {
                byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
                if (bytes.length > maxBytes) throw tooLarge(file, what, maxBytes, -1);
                return bytes;
            }
        } catch (NoSuchFileException e) {
            throw new SpecException(file.toString(), null, what + "; it does not exist");
        } catch (IOException e) {
            throw new SpecException(file.toString(), null, what + " that can be read: " + e.getMessage());
        }
    }

    private static SpecException tooLarge(Path file, String what, long maxBytes, long size) {
        return new SpecException(file.toString(), null, what + " of at most " + sizeOf(maxBytes) + "; this one is "
                + (size < 0 ? "larger (it grew while it was read)" : sizeOf(size)));
    }

    /** "64 MB", "1 MB", "1.5 MB", "512 KB": a size as a message names it (binary units). */
    static String sizeOf(long bytes) {
        if (bytes >= 1L << 20) {
            String mb = String.format(java.util.Locale.ROOT, "%.1f", bytes / (double) (1L << 20));
            return (mb.endsWith(".0") ? mb.substring(0, mb.length() - 2) : mb) + " MB";
        }
        return (bytes + 1023) / 1024 + " KB";
    }

    private static String decodeStrictly(byte[] bytes) throws CharacterCodingException {
        // ASCII, what run files and most logs are, is UTF-8 that needs no decoder: the same string, without the
        // decoder's buffer of chars and its copy
        if (ascii(bytes)) return new String(bytes, StandardCharsets.US_ASCII);
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(java.nio.ByteBuffer.wrap(bytes)).toString();
    }

    /** Whether every byte is ASCII (below 0x80). */
    private static boolean ascii(byte[] bytes) {
        for (byte b : bytes) if (b < 0) return false;
        return true;
    }

    private static String withoutBom(String text) {
        return text.startsWith("\uFEFF") ? text.substring(1) : text;
    }

    /** A stream over a regular file of any size, for reading it line by line. */
    public static InputStream open(Path file, String what) {
        requireRegularFile(file, what);
        try {
            return Files.newInputStream(file);
        } catch (IOException e) {
            throw new SpecException(file.toString(), null, what + " that can be read: " + e.getMessage());
        }
    }

    /** A UTF-8 reader over a regular file of any size (malformed bytes replaced). */
    public static BufferedReader reader(Path file, String what) {
        return new BufferedReader(new InputStreamReader(open(file, what), StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE)), 1 << 16);
    }
}
