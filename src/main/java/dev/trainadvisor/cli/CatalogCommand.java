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

@Command(name = "catalog", mixinStandardHelpOptions = true,
        description = "Lists GPUs, links, networks, clusters, models and rules with their sources.")
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
            w.println("  " + g.key() + "  " + Fmt.num(g.peakTflops(Precision.BF16), 4) + "  " + Fmt.num(g.hbmGb(), 4) + "  "
                    + Fmt.num(g.hbmGbps(), 4) + "  " + g.source());
        }
        w.println("Intra-node links (all-reduce busbw GB/s; source)");
        for (Catalog.Entry<IntraNodeLink> e : c.links().values())
            w.println("  " + e.key() + "  " + Fmt.num(e.value().busbwGbps(), 4) + "  " + e.raw().path("busbw_source").asText(e.value().source()));
        w.println("Networks (Gbit/s per NIC, efficiency; source)");
        for (Catalog.Entry<Catalog.NetworkEntry> e : c.networks().values())
            w.println("  " + e.key() + "  " + Fmt.num(e.value().lineRateGbitS(), 4) + "  " + e.value().efficiency() + "  " + e.value().source());
        w.println("Clusters");
        Presets.clusters().forEach((k, v) -> w.println("  " + k + "  " + v.path("description").asText()));
        w.println("Models");
        Presets.models().forEach((k, v) -> w.println("  " + k + "  " + v.path("source").asText()));
        w.println("Rules (id: title [file])");
        for (RuleInfo r : RuleEngine.builtIn().rules())
            w.println("  " + r.id() + ": " + r.title() + " [" + r.file() + "]");
        w.flush();
        return Main.OK;
    }
}
