package dev.trainadvisor.cli;

import dev.trainadvisor.advice.Advice;
import dev.trainadvisor.advice.TrainAdvisor;
import dev.trainadvisor.assemble.RunFiles;
import dev.trainadvisor.engine.RuleEngine;
import dev.trainadvisor.report.BatchTable;
import dev.trainadvisor.report.Fleet;
import dev.trainadvisor.report.Markdown;
import dev.trainadvisor.report.Html;
import dev.trainadvisor.report.Json;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.JsonTrees;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.io.PrintWriter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

@Command(name = "batch", mixinStandardHelpOptions = true,
        description = "Advice for every run file in a folder, in file-name order. A bad file is reported and the rest go on; the exit code is then 2.")
final class BatchCommand implements Callable<Integer> {
    enum Format { json, csv, md, html }

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "DIR", description = "folder of run files (*.json, *.yaml, *.yml) and logs (*.log, *.txt)")
    Path dir;

    @Option(names = "--format", defaultValue = "json",
            description = "json (an array of advice objects, in file-name order), or a table ranking the runs by throughput lost: csv, md, html")
    Format format;

    @Mixin
    CommonOptions common;

    @Option(names = "--no-progress", description = "no progress bar (it is shown only on a terminal anyway)")
    boolean noProgress;

    /** A folder's description of its logs: log file name -> run-file fields; "defaults" apply to every log. */
    static final String RUNS_FILE = "runs.yaml";

    /** One thing to advise: a run file, or a log with the run-file fields that describe it. */
    record Item(String name, Path file, ObjectNode tree) {}

    @Override
    public Integer call() {
        if (!Files.isDirectory(dir)) throw new SpecException(dir.toString(), null, "a folder of run files and logs");
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(Files::isRegularFile).sorted().toList();
        } catch (IOException e) {
            throw new SpecException(dir.toString(), null, "a readable folder: " + e.getMessage());
        }
        PrintWriter err = spec.commandLine().getErr();
        List<Item> items = new ArrayList<>();
        List<Fleet.Failure> failures = new ArrayList<>();
        collect(files, items, new Failures(failures, err));

        TrainAdvisor advisor = new TrainAdvisor(common.engine()).withoutLayoutSearch();
        List<Advice> out = new ArrayList<>();
        List<String> names = new ArrayList<>();
        Progress progress = new Progress(err, items.size(), !noProgress && System.console() != null);
        // runs are independent: advise them on every core, then report in file-name order
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Runtime.getRuntime().availableProcessors()));
        List<Future<Object>> results = new ArrayList<>();
        for (Item item : items) {
            results.add(pool.submit(() -> {
                try {
                    RunSpec s = RunFiles.read(item.tree(), item.file().toString());
                    return advisor.adviseRun(s.cluster(), s.run());
                } catch (SpecException e) {
                    return e;
                } finally {
                    progress.next(item.name());
                }
            }));
        }
        pool.shutdown();
        for (int i = 0; i < items.size(); i++) {
            Object r;
            try {
                r = results.get(i).get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
            }
            if (r instanceof Advice a) {
                out.add(a);
                names.add(items.get(i).name());
            } else {
                progress.clear();
                new Failures(failures, err).add(items.get(i).name(), ((SpecException) r).getMessage());
            }
        }
        progress.clear();
        String text = switch (format) {
            case json -> Json.of(out);
            case csv -> BatchTable.of(out, names).csv();
            case md -> Markdown.of(Fleet.of(out, names, failures));
            case html -> Html.of(Fleet.of(out, names, failures));
        };
        common.write(text, spec.commandLine().getOut());
        int bad = failures.size();
        if (bad > 0) err.println(bad + " of " + (bad + out.size()) + " file(s) could not be advised; the report holds the other "
                + out.size());
        err.flush();
        return bad > 0 ? Main.BAD_INPUT : Main.OK;
    }

    /**
     * Run files, and logs joined to a run file of the same stem or described in runs.yaml; returns the number of
     * files that could not be read (each reported).
     */
    static void collect(List<Path> files, List<Item> items, Failures failures) {
        ObjectNode runs = null;
        java.util.Set<Path> logsTaken = new java.util.HashSet<>();
        java.util.Map<String, Path> logsByStem = new java.util.HashMap<>();
        for (Path f : files) {
            if (isLog(f)) logsByStem.put(stem(f), f);
            if (f.getFileName().toString().equals(RUNS_FILE)) {
                try {
                    JsonNode n = SpecReader.parse(f);
                    if (!n.isObject()) throw new SpecException(f.toString(), null, "a mapping of log file names to run-file fields");
                    runs = (ObjectNode) n;
                } catch (SpecException e) {
                    failures.add(f.getFileName().toString(), e.getMessage());
                }
            }
        }
        for (Path f : files) {
            if (!isRunFile(f) || f.getFileName().toString().equals(RUNS_FILE)) continue;
            try {
                JsonNode n = SpecReader.parse(f);
                if (!n.isObject()) throw new SpecException(f.toString(), null, "a run file (an object with cluster, model, training)");
                ObjectNode tree = (ObjectNode) n;
                Path log = logsByStem.get(stem(f));
                if (log != null && !tree.has("log")) {
                    tree.put("log", log.toAbsolutePath().toString());
                    logsTaken.add(log);
                }
                items.add(new Item(f.getFileName().toString(), f, tree));
            } catch (SpecException e) {
                failures.add(f.getFileName().toString(), e.getMessage());
            }
        }
        for (Path f : files) {
            if (!isLog(f) || logsTaken.contains(f)) continue;
            String name = f.getFileName().toString();
            JsonNode entry = runs == null ? null : runs.get(name);
            if (entry == null || !entry.isObject()) {
                failures.add(name, f + ": a run file of the same stem (" + stem(f) + ".yaml) or an entry '" + name
                        + "' in " + RUNS_FILE + " saying which cluster, model and layout produced this log");
                continue;
            }
            ObjectNode tree = runs.has("defaults") && runs.get("defaults").isObject()
                    ? ((ObjectNode) runs.get("defaults")).deepCopy() : SpecReader.JSON_MAPPER.createObjectNode();
            JsonTrees.deepMerge(tree, entry);
            if (!tree.has("name")) tree.put("name", stem(f));
            tree.put("log", f.toAbsolutePath().toString());
            items.add(new Item(name, f.resolveSibling(RUNS_FILE + "#" + name), tree));
        }
        items.sort(java.util.Comparator.comparing(Item::name));
    }

    /** The files that could not be advised: each reported on standard error as it is found, and kept for the report. */
    record Failures(List<Fleet.Failure> list, PrintWriter err) {
        void add(String file, String message) {
            synchronized (list) {
                list.add(new Fleet.Failure(file, message));
            }
            err.println("error: " + message);
        }
    }

    static String stem(Path p) {
        String n = p.getFileName().toString();
        int dot = n.lastIndexOf('.');
        return dot > 0 ? n.substring(0, dot) : n;
    }

    static boolean isLog(Path p) {
        String n = p.getFileName().toString().toLowerCase(Locale.ROOT);
        return n.endsWith(".log") || n.endsWith(".txt");
    }

    static boolean isRunFile(Path p) {
        String n = p.getFileName().toString().toLowerCase(Locale.ROOT);
        return n.endsWith(".json") || n.endsWith(".yaml") || n.endsWith(".yml");
    }

    /** A one-line progress bar on standard error, drawn only on a terminal. */
    static final class Progress {
        private final PrintWriter err;
        private final int total;
        private final boolean on;
        private int done;

        Progress(PrintWriter err, int total, boolean on) {
            this.err = err;
            this.total = total;
            this.on = on && total > 0;
        }

        private long lastDrawNanos;

        synchronized void next(String name) {
            if (!on) return;
            long now = System.nanoTime();
            // redraw at most ten times a second: a bar, not a log
            if (done > 0 && done + 1 < total && now - lastDrawNanos < 100_000_000L) {
                done++;
                return;
            }
            lastDrawNanos = now;
            int width = 30, filled = total == 0 ? width : done * width / total;
            err.print("\r[" + "#".repeat(filled) + " ".repeat(width - filled) + "] " + done + "/" + total + " " + name + "\u001B[K");
            err.flush();
            done++;
        }

        synchronized void clear() {
            if (!on) return;
            err.print("\r\u001B[K");
            err.flush();
        }
    }
}
