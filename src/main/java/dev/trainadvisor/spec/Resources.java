package dev.trainadvisor.spec;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/** Data files shipped on the classpath (knowledge-base/, model/, rules/), from a folder or from the jar. */
public final class Resources {
    private Resources() {}

    /**
     * The data file {@code name}, read from the jar or folder this class was loaded from, else from the classpath.
     * Not through the class loader first: it asks the JDK's own modules before the classpath, and for a name outside
     * any package (knowledge-base/...) every module of the boot layer, which took 5% of a cold advise's CPU (JFR) for
     * the catalogue's 40 files.
     */
    public static InputStream open(String name) {
        InputStream in = Home.HOME.open(name);
        if (in == null) in = Resources.class.getClassLoader().getResourceAsStream(name);
        if (in == null) throw new IllegalStateException("missing resource on the classpath: " + name);
        return in;
    }

    public static boolean exists(String name) {
        return Home.HOME.exists(name) || Resources.class.getClassLoader().getResource(name) != null;
    }

    /** The index of the data files in the runnable jar, one path a line (src/build/DataIndex.java writes it). */
    static final String DATA_INDEX = "META-INF/train-advisor/data-files.txt";

    /** The jar or folder this class was loaded from, opened once; NONE where it is neither (an unusual loader). */
    private record Home(JarFile jar, Path folder) {
        static final Home NONE = new Home(null, null);
        static final Home HOME = locate();

        private static Home locate() {
            try {
                java.security.CodeSource source = Resources.class.getProtectionDomain().getCodeSource();
                if (source == null || source.getLocation() == null) return NONE;
                Path p = Path.of(source.getLocation().toURI());
                if (Files.isDirectory(p)) return new Home(null, p);
                if (Files.isRegularFile(p)) return new Home(new JarFile(p.toFile(), false), null);
            } catch (IOException | URISyntaxException | RuntimeException e) {
                // not a file on this machine's file system: the class loader reads the resources
            }
            return NONE;
        }

        InputStream open(String name) {
            try {
                if (jar != null) {
                    JarEntry e = jar.getJarEntry(name);
                    return e == null || e.isDirectory() ? null : jar.getInputStream(e);
                }
                if (folder != null) {
                    Path f = folder.resolve(name);
                    return Files.isRegularFile(f) ? Files.newInputStream(f) : null;
                }
            } catch (IOException | RuntimeException e) {
                // read through the class loader instead
            }
            return null;
        }

        /**
         * The data files of {@code jarUrl} from the index the build wrote into it (src/build/DataIndex.java), when it is
         * this jar and has one; else null, and the jar's directory is read: a cold advise walked the 10,000 entries of
         * the runnable jar for 3% of its CPU (JFR, bench/coldstart.sh).
         */
        List<String> index(URL jarUrl) {
            if (jar == null) return null;
            try {
                if (!Path.of(jarUrl.toURI()).equals(Path.of(jar.getName()))) return null;
                JarEntry e = jar.getJarEntry(DATA_INDEX);
                if (e == null) return null;
                try (InputStream in = jar.getInputStream(e)) {
                    return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).lines().toList();
                }
            } catch (IOException | URISyntaxException | RuntimeException e) {
                return null;
            }
        }

        boolean exists(String name) {
            if (jar != null) return jar.getJarEntry(name) != null;
            return folder != null && Files.isRegularFile(folder.resolve(name));
        }
    }

    /**
     * The entries of each jar that are not classes, read once: the runnable jar holds some 10,000 classes beside a few
     * hundred resources, and the catalogue, the presets, the frameworks and the rules each list a folder of it (a cold
     * `advise` read its whole directory four times).
     */
    private static final java.util.Map<String, List<String>> JAR_RESOURCES = new java.util.concurrent.ConcurrentHashMap<>();

    private static List<String> resourcesOf(JarURLConnection c) throws IOException {
        String jarUrl = c.getJarFileURL().toString();
        List<String> names = JAR_RESOURCES.get(jarUrl);
        if (names != null) return names;
        names = Home.HOME.index(c.getJarFileURL());
        if (names != null) {
            JAR_RESOURCES.putIfAbsent(jarUrl, names);
            return names;
        }
        c.setUseCaches(false);
        List<String> read = new ArrayList<>();
        try (JarFile jar = c.getJarFile()) {
            Enumeration<JarEntry> es = jar.entries();
            while (es.hasMoreElements()) {
                String n = es.nextElement().getName();
                if (!n.endsWith(".class")) read.add(n);
            }
        }
        names = List.copyOf(read);
        JAR_RESOURCES.putIfAbsent(jarUrl, names);
        return names;
    }

    /** Names (full resource paths, sorted) of the files in classpath folder {@code dir} ending in {@code suffix}. */
    public static List<String> list(String dir, String suffix) {
        String prefix = dir.endsWith("/") ? dir : dir + "/";
        List<String> out = new ArrayList<>();
        try {
            Enumeration<URL> urls = Resources.class.getClassLoader().getResources(prefix);
            while (urls.hasMoreElements()) {
                URL url = urls.nextElement();
                if ("file".equals(url.getProtocol())) {
                    try (Stream<Path> files = Files.list(Path.of(url.toURI()))) {
                        files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(suffix))
                                .forEach(n -> out.add(prefix + n));
                    }
                } else if ("jar".equals(url.getProtocol())) {
                    for (String n : resourcesOf((JarURLConnection) url.openConnection()))
                        if (n.startsWith(prefix) && n.endsWith(suffix) && n.indexOf('/', prefix.length()) < 0) out.add(n);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        return out.stream().distinct().sorted().toList();
    }
}
