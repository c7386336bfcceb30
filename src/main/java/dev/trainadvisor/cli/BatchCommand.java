package dev.trainadvisor.cli;

import dev.trainadvisor.advice.Advice;
import dev.trainadvisor.advice.TrainAdvisor;
import dev.trainadvisor.engine.RuleEngine;
import dev.trainadvisor.report.BatchTable;
import dev.trainadvisor.report.Html;
import dev.trainadvisor.report.Json;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecException;
import dev.trainadvisor.spec.SpecReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

@Command(name = "batch", mixinStandardHelpOptions = true,
        description = "Advice for every run file in a folder, in file-name order. A bad file is reported and the rest go on; the exit code is then 2.")
final class BatchCommand implements Callable<Integer> {
    enum Format { json, csv, md, html }

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "DIR", description = "folder of run files (*.json, *.yaml, *.yml)")
    Path dir;

    @Option(names = "--format", defaultValue = "json",
            description = "json (an array of advice objects, in file-name order), or a table ranking the runs by throughput lost: csv, md, html")
    Format format;

    @Mixin
    CommonOptions common;

    @Override
    public Integer call() {
        if (!Files.isDirectory(dir)) throw new SpecException(dir.toString(), null, "a folder of run files");
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(BatchCommand::isRunFile).sorted().toList();
        } catch (IOException e) {
            throw new SpecException(dir.toString(), null, "a readable folder: " + e.getMessage());
        }
        RuleEngine engine = common.engine();
        TrainAdvisor advisor = new TrainAdvisor(engine);
        SpecReader reader = new SpecReader();
        List<Advice> out = new ArrayList<>();
        List<String> names = new ArrayList<>();
        int bad = 0;
        for (Path f : files) {
            try {
                RunSpec s = reader.read(f);
                out.add(advisor.adviseRun(s.cluster(), s.run()));
                names.add(f.getFileName().toString());
            } catch (SpecException e) {
                bad++;
                spec.commandLine().getErr().println("error: " + e.getMessage());
            }
        }
        String text = switch (format) {
            case json -> Json.of(out);
            case csv -> BatchTable.of(out, names).csv();
            case md -> BatchTable.of(out, names).markdown();
            case html -> Html.of(BatchTable.of(out, names));
        };
        common.write(text, spec.commandLine().getOut());
        if (bad > 0) spec.commandLine().getErr().println(bad + " of " + files.size() + " files could not be read; the others were advised");
        return bad > 0 ? Main.BAD_INPUT : Main.OK;
    }

    static boolean isRunFile(Path p) {
        String n = p.getFileName().toString().toLowerCase(Locale.ROOT);
        return Files.isRegularFile(p) && (n.endsWith(".json") || n.endsWith(".yaml") || n.endsWith(".yml"));
    }
}
