package dev.trainadvisor.cli;

import dev.trainadvisor.engine.RuleEngine;
import dev.trainadvisor.engine.RuleInfo;
import dev.trainadvisor.facts.Fmt;
import dev.trainadvisor.spec.Catalog;
import dev.trainadvisor.spec.Gpu;
import dev.trainadvisor.spec.IntraNodeLink;
import dev.trainadvisor.spec.Precision;
import dev.trainadvisor.spec.Presets;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

@Command(name = "catalog", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = "Lists GPUs, links, networks, hosts, host optimizers, clusters, models, frameworks and rules with their "
                + "sources.",
        exitCodeListHeading = ExitCodes.HEADING, exitCodeList = {ExitCodes.OK})
final class CatalogCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter w = spec.commandLine().getOut();
        Catalog c = Catalog.builtIn();
        w.println("GPUs (dense bf16 TFLOPS, HBM GB, HBM GB/s; source)");
        for (Catalog.Entry<Gpu> e : c.gpus().values()) {
            Gpu g = e.value();
            entry(w, g.key() + "  " + Fmt.num(g.peakTflops(Precision.BF16), 4) + "  " + Fmt.num(g.hbmGb(), 4) + "  "
                    + Fmt.num(g.hbmGbps(), 4), g.source());
        }
        w.println("Intra-node links (all-reduce busbw GB/s; source)");
        for (Catalog.Entry<IntraNodeLink> e : c.links().values())
            entry(w, e.key() + "  " + Fmt.num(e.value().busbwGbps(), 4), e.raw().path("busbw_source").asText(e.value().source()));
        w.println("Networks (Gbit/s per NIC, efficiency; source)");
        for (Catalog.Entry<Catalog.NetworkEntry> e : c.networks().values())
            entry(w, e.key() + "  " + Fmt.num(e.value().lineRateGbitS(), 4) + "  " + e.value().efficiency(), e.value().source());
        w.println("Hosts (cores, memory GB/s as a triad, memory GB; source)");
        for (dev.trainadvisor.spec.Host h : dev.trainadvisor.spec.Hosts.builtIn().hosts().values())
            entry(w, h.key() + "  " + h.cores() + "  " + Fmt.num(h.memoryBandwidthGbps(), 4) + "  " + Fmt.num(h.memoryGb(), 4),
                    h.source());
        w.println("Host optimizers (fp32 parameters a second at 16 threads, bytes of triad a parameter; source)");
        for (dev.trainadvisor.spec.HostOptimizer o : dev.trainadvisor.spec.Hosts.builtIn().optimizers().values())
            entry(w, o.key() + "  " + Fmt.num(o.paramsPerS(16) / 1e9, 3) + "e9  " + Fmt.num(o.triadBytesPerParam(), 3),
                    o.source());
        w.println("Clusters");
        Presets.clusters().forEach((k, v) -> entry(w, k, v.path("description").asText()));
        w.println("Models");
        Presets.models().forEach((k, v) -> entry(w, k, v.path("source").asText()));
        w.println("Frameworks (training.framework: versions, the default first, what begins each, their logs; the code read)");
        for (dev.trainadvisor.spec.Frameworks.Profile p : dev.trainadvisor.spec.Frameworks.builtIn().profiles().values())
            entry(w, p.key(), (p.versions().containsKey(null) ? "" : "versions " + versions(p) + ". ") + logs(p)
                    + p.at(null).name() + ": " + p.at(null).code());
        w.println("Rules (id: title [file])");
        for (RuleInfo r : RuleEngine.builtIn().rules())
            entry(w, r.id() + ":", r.title() + " [" + r.file() + "]");
        w.flush();
        return Main.OK;
    }

    /**
     * "2026-06 (the default, from 2026-06-09), 2025-10 (from 2025-10-29), before-2025-10": a profile's versions, the default
     * first, each with what begins it (the day, the release) where the profile says; what a log's date or stated release
     * chooses among (docs/model.md, Frameworks).
     */
    static String versions(dev.trainadvisor.spec.Frameworks.Profile p) {
        java.util.List<String> order = new java.util.ArrayList<>(p.versions().keySet());
        order.remove(p.defaultVersion());
        order.add(0, p.defaultVersion());
        java.util.List<String> out = new java.util.ArrayList<>();
        for (String v : order) {
            java.util.List<String> notes = new java.util.ArrayList<>();
            if (v.equals(p.defaultVersion())) notes.add("the default");
            if (p.since().containsKey(v)) notes.add("from " + p.since().get(v));
            if (p.fromRelease().containsKey(v)) notes.add("release " + p.fromRelease().get(v) + " on");
            // a log format some versions print and others do not: its logs are read at those (Frameworks.readingLogFormat)
            for (String f : p.versions().get(v).logFormats())
                if (!everyVersionNames(p, f)) notes.add(f + " logs");
            out.add(notes.isEmpty() ? v : v + " (" + String.join(", ", notes) + ")");
        }
        return String.join(", ", out);
    }

    /** "Logs: torchtitan. ": the log formats every version of {@code p} is named by; nothing where none is. */
    static String logs(dev.trainadvisor.spec.Frameworks.Profile p) {
        java.util.List<String> all = p.at(null).logFormats().stream().filter(f -> everyVersionNames(p, f)).toList();
        return all.isEmpty() ? "" : "Logs: " + String.join(", ", all) + ". ";
    }

    private static boolean everyVersionNames(dev.trainadvisor.spec.Frameworks.Profile p, String format) {
        return p.versions().values().stream().allMatch(f -> f.logFormats().contains(format));
    }

    /** Lines of the listing are at most this wide, but for a single word longer (a URL is never cut). */
    static final int WIDTH = 110;

    /** "  key  values  text" where it fits; else the text (a source, a description) whole, wrapped under the key. */
    static void entry(PrintWriter w, String head, String text) {
        String one = "  " + head + "  " + text.trim();
        if (one.length() <= WIDTH) {
            w.println(one);
            return;
        }
        w.println("  " + head);
        for (String line : wrap(text, WIDTH - 6)) w.println("      " + line);
    }

    /** The words of {@code text} in lines of at most {@code width} characters; a longer word has a line to itself. */
    static java.util.List<String> wrap(String text, int width) {
        java.util.List<String> out = new java.util.ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.trim().split("\\s+")) {
            if (word.isEmpty()) continue;
            if (line.length() > 0 && line.length() + 1 + word.length() > width) {
                out.add(line.toString());
                line.setLength(0);
            }
            if (line.length() > 0) line.append(' ');
            line.append(word);
        }
        if (line.length() > 0) out.add(line.toString());
        return out;
    }
}
