package dev.trainadvisor.cli;

import picocli.CommandLine;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** {@code --version}: the pom's version, written into version.properties when Maven copies the resources. */
final class Version implements CommandLine.IVersionProvider {
    static final String RESOURCE = "version.properties";

    @Override
    public String[] getVersion() { return new String[]{"train-advisor " + of()}; }

    /** The project's version ("0.1.0-SNAPSHOT"), or "unknown" where the resource was not built (running from sources). */
    static String of() {
        try (InputStream in = Version.class.getResourceAsStream(RESOURCE)) {
            if (in == null) return "unknown";
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version", "unknown");
            return v.startsWith("${") ? "unknown" : v;
        } catch (IOException e) {
            return "unknown";
        }
    }
}
