package dev.trainadvisor.assemble;

import dev.trainadvisor.input.SpecException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A folder whose files may be read and nothing outside it (issue 23: a batch folder is a boundary). A path is inside
 * when its real path (every symbolic link followed, {@code ..} resolved) is the folder's real path or under it; a path
 * that does not exist is judged by its nearest existing parent, so that the reader's own "does not exist" is what the
 * user sees. {@link #NONE} lets everything through ({@code --allow-outside}, and {@code advise} of one file the user
 * names).
 */
public final class Boundary {
    /** No boundary. */
    public static final Boundary NONE = new Boundary(null, null, null);

    private final Path root;
    private final String shown;
    /** The folder as named, absolute: its entries as listed ({@link #containsNonLink}). */
    private final Path folder;

    private Boundary(Path root, String shown, Path folder) {
        this.root = root;
        this.shown = shown;
        this.folder = folder;
    }

    /** The boundary of {@code folder}, as the user named it in messages. */
    public static Boundary of(Path folder) {
        try {
            return new Boundary(folder.toRealPath(), folder.toString(), folder.toAbsolutePath().normalize());
        } catch (IOException e) {
            throw new SpecException(folder.toString(), null, "a readable folder: " + e.getMessage());
        }
    }

    public boolean isNone() { return root == null; }

    /** Whether {@code p} (a file, a link, a folder) is inside; always with {@link #NONE}. */
    public boolean contains(Path p) {
        if (root == null) return true;
        Path real = realOrNearest(p.toAbsolutePath().normalize());
        return real != null && real.startsWith(root);
    }

    /**
     * As {@link #contains}, of {@code entry}, which is no symbolic link (its own attributes say so): an entry of the
     * folder as listed is inside without its path resolved again, since its real path is the folder's and its name; a
     * path elsewhere is resolved.
     */
    public boolean containsNonLink(Path entry) {
        if (root == null) return true;
        if (folder.equals(entry.toAbsolutePath().normalize().getParent())) return true;
        return contains(entry);
    }

    /** {@code p}, or a refusal naming {@code file} and {@code field} (what named it) when it leads outside. */
    Path require(Path p, String file, String field, String name) {
        if (contains(p)) return p;
        throw new SpecException(file, field, "a file inside the folder " + shown + "; '" + name + "' leads outside it (an "
                + "absolute path, a '..' or a symbolic link), so it is not read: --allow-outside reads it");
    }

    /** What a message says of an entry of the folder that is a link leading outside. */
    public String outside() {
        return "a file inside the folder " + shown + "; this is a symbolic link that leads outside it, so it is not read "
                + "(--allow-outside reads it)";
    }

    private static Path realOrNearest(Path p) {
        for (Path q = p; q != null; q = q.getParent()) {
            try {
                Path real = q.toRealPath();
                return q == p ? real : real.resolve(q.relativize(p)).normalize();
            } catch (IOException e) {
                if (Files.isSymbolicLink(q)) return null;   // a dangling link: where it leads is unknown
            }
        }
        return null;
    }
}
