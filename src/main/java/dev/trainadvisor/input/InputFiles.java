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
        if (!Files.exists(file)) throw new SpecException(file.toString(), null, what + "; no such file");
        if (Files.isDirectory(file)) throw new SpecException(file.toString(), null, what + "; this is a folder");
        if (!Files.isRegularFile(file))
            throw new SpecException(file.toString(), null, what + "; not a regular file (a device, pipe or socket is "
                    + "not read: it may never end)");
        if (!Files.isReadable(file)) throw new SpecException(file.toString(), null, what + "; the file cannot be read");
        return file;
    }

    /** A small file's text (UTF-8, malformed bytes replaced), refused above {@link #MAX_WHOLE_FILE_BYTES}. */
    public static String readText(Path file, String what) {
        requireRegularFile(file, what);
        try {
            long size = Files.size(file);
            if (size > MAX_WHOLE_FILE_BYTES)
                throw new SpecException(file.toString(), null, what + " of at most " + (MAX_WHOLE_FILE_BYTES >> 20)
                        + " MB; this one is " + (size >> 20) + " MB");
            byte[] bytes = Files.readAllBytes(file);
            try {
                return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .decode(java.nio.ByteBuffer.wrap(bytes)).toString();
            } catch (CharacterCodingException e) {
                // a log or config with stray bytes is still read: each bad byte becomes U+FFFD
                return new String(bytes, StandardCharsets.UTF_8);
            }
        } catch (NoSuchFileException e) {
            throw new SpecException(file.toString(), null, what + "; no such file");
        } catch (IOException e) {
            throw new SpecException(file.toString(), null, what + " that can be read: " + e.getMessage());
        }
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
