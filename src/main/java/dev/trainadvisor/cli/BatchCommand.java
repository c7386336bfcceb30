package dev.trainadvisor.cli;

import dev.trainadvisor.advice.TrainAdvisor;
import dev.trainadvisor.assemble.Boundary;
import dev.trainadvisor.assemble.RunFiles;
import dev.trainadvisor.engine.RuleEngine;
import dev.trainadvisor.report.BatchTable;
import dev.trainadvisor.report.Fleet;
import dev.trainadvisor.report.FleetStream;
import dev.trainadvisor.report.Markdown;
import dev.trainadvisor.report.Html;
import dev.trainadvisor.report.Json;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.JsonTrees;
import dev.trainadvisor.spec.SpecReader;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
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

@Command(name = "batch", mixinStandardHelpOptions = true, sortOptions = false, versionProvider = Version.class,
        description = {"Advice for every run file and training log in a folder, in file-name order; in csv, md and html the "
                + "runs ranked by GPU-hours lost.",
                "A log joins the run file that names it (log:), else the run file of its stem, else its entry in DIR/runs.yaml, "
                        + "and is read as advise --log reads it. A bad file is reported and the rest go on; the exit code is "
                        + "then 2. Files that are neither are skipped and listed; the report the batch writes (--out, or "
                        + "standard output redirected into the folder) is never read."},
        exitCodeListHeading = ExitCodes.HEADING, exitCodeList = {ExitCodes.OK, ExitCodes.BATCH_BAD})
final class BatchCommand implements Callable<Integer> {
    enum Format { json, csv, md, html }

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "DIR", description = "a folder of run files (*.json, *.yaml, *.yml) and training logs "
            + "(of any name: recognised by content), with runs.yaml describing the logs no run file names")
    Path dir;

    @ArgGroup(validate = false, order = 1, heading = "%nRules:%n")
    CommonOptions.Rules rules = new CommonOptions.Rules();

    @ArgGroup(validate = false, order = 2, heading = "%nOutput:%n")
    Out output = new Out();

    static final class Out extends CommonOptions.Out {
        @Option(names = "--format", paramLabel = "FORMAT", order = 90, defaultValue = "json",
                description = "${COMPLETION-CANDIDATES}: json is an array of advice objects in file-name order; csv a table "
                        + "ranking the runs by GPU-hours lost; md and html the fleet report (default: ${DEFAULT-VALUE})")
        Format format = Format.json;

        @Option(names = "--progress", negatable = true, order = 92,
                description = "a progress bar with the rate and the time left on standard error (default: drawn when "
                        + "standard error is a terminal)")
        Boolean progress;
    }

    /** A folder's description of its logs: log file name -> run-file fields; "defaults" apply to every log. */
    static final String RUNS_FILE = "runs.yaml";

    @Option(names = "--allow-outside", description = "read files outside DIR: symbolic links in it that lead out, and files a "
            + "run file names with an absolute path or '..' (refused by default: a shared folder is a boundary)")
    boolean allowOutside;

    /**
     * One thing to advise: a run file of the folder (read again when it is advised, so that the batch does not hold every
     * run file's tree), with the log of the same stem joined to it; or a log of runs.yaml, with the run-file fields that
     * describe it ({@code tree}). The batch holds one for every run of the folder until the last is advised, so it keeps
     * no path of its own (its file is the folder's entry of its name) and, of the listing's glance, only the tree it
     * kept: a million run files' items take some 100 MB, where their paths and glances took some 300 MB and a batch of
     * bench/fleet.py's million runs ran out of its 768 MB heap.
     *
     * @param kept the tree the listing parsed, while kept ({@link Glance}); null where it was not
     */
    record Item(String name, Path folder, ObjectNode tree, Path sameStemLog,
                java.util.concurrent.atomic.AtomicReference<JsonNode> kept) {
        Item(String name, Path folder, ObjectNode tree) { this(name, folder, tree, null, null); }

        /** The file it is read from: the run file, or runs.yaml's entry of the log (runs.yaml#name) it is described by. */
        Path file() { return folder.resolve(tree == null ? name : RUNS_FILE + "#" + name); }

        Item withSameStemLog(Path log) { return new Item(name, folder, tree, log, kept); }

        /** The run-file tree to advise: the listing's, taken once, or the file parsed again. */
        ObjectNode read() {
            if (tree != null) return tree;
            JsonNode n = kept == null ? null : kept.getAndSet(null);
            Path file = file();
            if (n == null) n = SpecReader.parse(file);
            if (!(n instanceof ObjectNode o)) throw new SpecException(file.toString(), null, "a run file (a mapping of fields)");
            if (sameStemLog != null && !o.has("log")) o.put("log", sameStemLog.toAbsolutePath().toString());
            return o;
        }
    }

    /** Runs advised ahead of the one being written: enough to keep every core busy, few enough to hold in memory. */
    static int window(int threads) { return 4 * threads; }

    @Override
    public Integer call() {
        if (!Files.isDirectory(dir)) throw new SpecException(dir.toString(), null, "a folder of run files and logs");
        // the options and the rules before any file: a bad limit or rule file is refused before the folder is read
        CommonOptions.Rules rl = rules == null ? new CommonOptions.Rules() : rules;
        Out o = output == null ? new Out() : output;
        TrainAdvisor advisor = new TrainAdvisor(rl.engine()).withoutLayoutSearch();
        Boundary boundary = allowOutside ? Boundary.NONE : Boundary.of(dir);
        PrintWriter err = spec.commandLine().getErr();
        List<Item> items = new ArrayList<>();
        List<Fleet.Failure> failures = new ArrayList<>();
        List<Fleet.Skipped> skipped = new ArrayList<>();
        // the listing's paths are not held past it: a million of them take some 150 MB; a heap collected by hand is
        // collected after each part of the listing too (parsing a million run files grew G1's heap to 3.1 GB without)
        HeapBound heap = new HeapBound();
        collect(list(dir), ownOutputs(o.out), items, new Failures(failures, err), skipped, boundary, LISTING_PART,
                heap::check);
        for (Fleet.Skipped f : skipped) err.println("note: skipped " + f.file() + ": " + f.why());

        Progress progress = new Progress(err, items.size(), showProgress(o.progress, stderrTarget()));
        java.util.function.Consumer<String> warn = w -> {
            progress.clear();
            err.println("warning: " + w);
        };
        // runs are independent: advise them on every core, a window ahead of the one written, in file-name order
        int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        java.util.ArrayDeque<Future<Object>> ahead = new java.util.ArrayDeque<>();
        int advised = 0, next = 0;
        FleetStream.Pages pages = o.out == null || !(o.format == Format.md || o.format == Format.html) ? null
                : new FleetStream.Pages(runPagesFolder(o.out), o.out.getFileName().toString(), o.format.name());
        try (java.io.Writer out = Output.open(o.out, spec.commandLine().getOut());
             FleetStream stream = new FleetStream(FleetStream.Format.valueOf(o.format.name().toUpperCase(Locale.ROOT)), out, pages)) {
            for (int i = 0; i < items.size(); i++) {
                while (next < items.size() && next - i < window(threads)) {
                    Item item = items.get(next++);
                    ahead.add(pool.submit(() -> {
                        try {
                            RunSpec s = RunFiles.read(item.read(), item.file().toString(), warn, boundary);
                            // the run's part of the report is worked out here too, beside the next runs' advice
                            return stream.prepare(advisor.adviseRun(s.cluster(), s.run()), item.name());
                        } catch (SpecException e) {
                            return e;
                        } finally {
                            progress.next(item.name());
                        }
                    }));
                }
                Object r = result(ahead.poll());
                if (r instanceof FleetStream.Prepared p) {
                    stream.add(p);
                    advised++;
                    heap.check();
                } else {
                    progress.clear();
                    new Failures(failures, err).add(items.get(i).name(), ((SpecException) r).getMessage());
                }
            }
            progress.clear();
            stream.finish(failures, skipped);
        } catch (IOException e) {
            throw new SpecException(o.out == null ? "standard output" : o.out.toString(), null, "a writable output: "
                    + e.getMessage());
        } finally {
            pool.shutdownNow();
        }
        int bad = failures.size();
        if (bad > 0) err.println(bad + " of " + (bad + advised) + " file(s) could not be advised; the report holds the other "
                + advised);
        if (!skipped.isEmpty()) err.println(skipped.size() + " file(s) skipped as neither a run file nor a training log");
        err.flush();
        return bad > 0 ? Main.BAD_INPUT : Main.OK;
    }

    /**
     * The heap a batch lets the JVM keep: what it holds at once is a window of runs (tens of MB), but each run allocates
     * megabytes that die at once, and G1 on the default heap (a quarter of the machine's memory) grows its young
     * generation rather than collect more often: 3.2 GB resident over 10,000 runs before issue 23, 0.9-1.0 GB with the
     * results streamed. Past this much committed heap a full collection gives it back (G1 shrinks the heap after one),
     * about every few hundred runs at a few tens of milliseconds each.
     */
    static final long HEAP_BOUND = 512L << 20;

    /**
     * A heap the JVM was told to keep at most this large (bin/train-advisor gives batch -Xmx768m) stays under issue
     * 23's 1 GB resident by itself, and is not collected by hand: a full collection every few hundred runs, and the
     * young generation it shrinks, cost a third of the batch's time (bench/batch.sh 10000: 37 s with them, 23-25 s
     * without, on 2 cores).
     */
    static final long BOUNDED_HEAP = 768L << 20;

    /**
     * A batch's collections by hand: past {@link #HEAP_BOUND} committed at first, then, after each, past what the
     * collection left committed and half the bound more ({@link #nextBound}). A heap that the collection gives back
     * (G1's, shrunk after a full collection) is collected again at the bound, as before: 10,000 runs in 619 MB
     * resident. One that a large batch fills with what it keeps of each run (some 140 bytes), which G1 does not shrink
     * while less than 70% of it is free, or that a collector does not shrink at all (the parallel one, under a user's
     * -Xmx3g), is collected only as it grows: a million runs on G1's default heap made 8 full collections and took 2.1
     * GB resident (bin/train-advisor's -Xmx768m holds them to 918 MB). At the bound alone, collections came after every
     * run once past it: of 100,000 runs on the default heap 2,528 full collections (590 s) in ten minutes, stopped there;
     * of a million under -Xmx3g 1,009 (539 s) in nine.
     */
    static final class HeapBound {
        private long bound = HEAP_BOUND;

        /** After a part of the listing, and after each run written: collects by hand where {@link #collectByHand} says so. */
        void check() {
            Runtime r = Runtime.getRuntime();
            if (!collectByHand(r.maxMemory(), r.totalMemory(), bound)) return;
            System.gc();
            bound = nextBound(r.totalMemory());
        }
    }

    /**
     * Whether a heap allowed to grow to {@code maxBytes}, now {@code committedBytes}, is collected by hand, past
     * {@code bound} committed ({@link HeapBound}: {@link #HEAP_BOUND} until the first collection).
     */
    static boolean collectByHand(long maxBytes, long committedBytes, long bound) {
        return maxBytes > BOUNDED_HEAP && committedBytes > bound;
    }

    /** The committed heap past which the next collection by hand comes, after one that left {@code committedBytes}. */
    static long nextBound(long committedBytes) { return Math.max(HEAP_BOUND, committedBytes + HEAP_BOUND / 2); }

    /** A run's advice or the SpecException that stopped it; anything else escapes as it did. */
    private static Object result(Future<Object> f) {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) throw re;
            if (e.getCause() instanceof Error er) throw er;
            throw new IllegalStateException(e.getCause());
        }
    }

    /** What the batch says of an entry of the folder that is no file to read. */
    static final String FOLDER = "a folder: batch reads the files in the folder itself, not its subfolders (a run file names a "
            + "folder of per-rank logs with log:)";
    static final String NOT_A_FILE = "not a regular file: a pipe, a socket or a device is not read (it may never end)";
    static final String EMPTY = "empty";

    /** The folder's entries, sorted. */
    static List<Path> list(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        } catch (IOException e) {
            throw new SpecException(dir.toString(), null, "a readable folder: " + e.getMessage());
        }
    }

    /** report.html -> report-runs: where the run pages of a fleet report written to {@code out} go. */
    static Path runPagesFolder(Path out) {
        String name = out.getFileName().toString();
        int dot = name.lastIndexOf('.');
        return out.resolveSibling((dot > 0 ? name.substring(0, dot) : name) + "-runs");
    }

    /**
     * One line after the errors of the logs nothing describes (a folder of logs given as it was kept): what to write,
     * once, rather than only an error a log.
     */
    static String hint(List<Path> undescribed, boolean runsFile) {
        Path dir = undescribed.get(0).toAbsolutePath().getParent();
        String file = dir == null ? RUNS_FILE : dir.resolve(RUNS_FILE).toString();
        return "hint: " + undescribed.size() + " training log(s) that no run file describes: " + (runsFile ? "add an entry for "
                + "each to " : "write ") + file + ", each log's file name with the cluster, model and layout that produced it, "
                + "on top of defaults (examples/runs/runs.yaml shows one; docs/logs.md); advise --log LOG tries one alone";
    }

    /**
     * Run files, and the training logs of the folder joined to the run file that names them with {@code log:}, else to
     * the run file of the same stem, else to their entry in runs.yaml; a log none of these describes is a failure. Files
     * that are neither (recognised by content), folders, pipes and empty files are skipped with the reason; so are the
     * reports train-advisor wrote, and {@code outputs}, what this batch writes, is left out without a word. An entry that
     * leads outside {@code boundary} (a symbolic link out of the folder) is a failure, and not read. The entries are
     * worked out {@code part} at a time ({@link #LISTING_PART}; tests try others), {@code partDone} run after each part.
     * {@code files} are the entries of one folder ({@link #list}): the items keep that folder, not each one's path.
     */
    static void collect(List<Path> files, List<Path> outputs, List<Item> items, Failures failures, List<Fleet.Skipped> skipped,
                        Boundary boundary, int part, Runnable partDone) {
        ObjectNode runs = null;
        java.util.Set<Path> logsTaken = new java.util.HashSet<>();
        java.util.Map<String, Path> logsByStem = new java.util.HashMap<>();
        // the run files' items, in the order listed, and which of them name their log (no log of their stem joins them)
        List<Item> runItems = new ArrayList<>();
        java.util.BitSet namesLog = new java.util.BitSet();
        java.util.Set<Path> named = new java.util.HashSet<>();
        List<Path> others = new ArrayList<>(), logs = new ArrayList<>(), folders = new ArrayList<>();
        // what the batch asks of each entry (its own output? inside the folder? a folder, a file, empty?) and, of a run
        // file, its glance (parsed: a folder of 10,000 took seconds on one core), worked out on every core, each once,
        // a part of the listing at a time (LISTING_PART), so that the entries' answers are not all held at once; the
        // order of what is reported is the loop's below, over the entries as listed
        java.util.concurrent.atomic.AtomicLong kept = new java.util.concurrent.atomic.AtomicLong();   // Glance#KEPT_BYTES
        Outputs own = Outputs.of(outputs);
        Path folder = files.isEmpty() ? null : files.get(0).getParent();
        for (int from = 0; from < files.size(); from += part) {
            List<Path> listed = files.subList(from, Math.min(files.size(), from + part));
            Entry[] entries = listed.parallelStream().map(f -> Entry.of(f, own, boundary, kept)).toArray(Entry[]::new);
            for (int k = 0; k < listed.size(); k++) {
                Path f = listed.get(k);
                Entry entry = entries[k];
                String name = f.getFileName().toString();
                switch (entry.kind()) {
                    case HIDDEN, OWN -> { continue; }
                    case OUTSIDE -> {
                        failures.add(name, f + ": " + boundary.outside());
                        continue;
                    }
                    case FOLDER -> {
                        folders.add(f);
                        continue;
                    }
                    case NOT_A_FILE, DANGLING -> {
                        skipped.add(new Fleet.Skipped(name, entry.kind() == Entry.Kind.NOT_A_FILE ? NOT_A_FILE
                                : "a symbolic link to nothing"));
                        continue;
                    }
                    case EMPTY -> {
                        skipped.add(new Fleet.Skipped(name, EMPTY));
                        continue;
                    }
                    case FILE -> { }
                }
                if (name.equals(RUNS_FILE)) {
                    try {
                        JsonNode n = SpecReader.parse(f);
                        if (!n.isObject()) throw new SpecException(f.toString(), null, "a mapping of log file names to run-file fields");
                        runs = (ObjectNode) n;
                        runs.elements().forEachRemaining(described -> named.addAll(named(f, described)));
                    } catch (SpecException e) {
                        failures.add(f.getFileName().toString(), e.getMessage());
                    }
                } else if (!isRunFile(f)) {
                    others.add(f);
                } else {
                    Glance g = entry.glance();
                    if (g.error() != null) {   // an empty run file is an EMPTY entry (Entry.of)
                        failures.add(name, g.error().getMessage());
                        continue;
                    }
                    if (g.notARunFile() != null) {
                        skipped.add(new Fleet.Skipped(name, g.notARunFile()));
                        continue;
                    }
                    if (g.namesLog()) namesLog.set(runItems.size());
                    runItems.add(new Item(name, folder, null, null, g.tree()));
                    named.addAll(g.named());
                }
            }
            partDone.run();
        }
        for (Path f : folders)
            if (!named.contains(f.toAbsolutePath().normalize())) skipped.add(new Fleet.Skipped(f.getFileName().toString(), FOLDER));
        for (Path f : others) {
            if (named.contains(f.toAbsolutePath().normalize())) continue;   // its run file reads it
            try {
                String why = notATrainingLog(f);
                if (why != null) {
                    skipped.add(new Fleet.Skipped(f.getFileName().toString(), why));
                    continue;
                }
                logs.add(f);
                logsByStem.put(stem(f), f);
            } catch (SpecException e) {
                failures.add(f.getFileName().toString(), e.getMessage());
            }
        }
        for (int k = 0; k < runItems.size(); k++) {
            Item item = runItems.get(k);
            Path log = namesLog.get(k) ? null : logsByStem.get(stem(item.name()));
            if (log != null) logsTaken.add(log);
            items.add(log != null ? item.withSameStemLog(log) : item);
        }
        runItems.clear();
        List<Path> undescribed = new ArrayList<>();
        for (Path f : logs) {
            if (logsTaken.contains(f)) continue;
            String name = f.getFileName().toString();
            JsonNode entry = runs == null ? null : runs.get(name);
            if (entry == null || !entry.isObject()) {
                failures.add(name, f + ": a run file of the same stem (" + stem(f) + ".yaml), a run file naming it with log:, "
                        + "or an entry '" + name + "' in " + RUNS_FILE + " saying which cluster, model and layout produced this log");
                undescribed.add(f);
                continue;
            }
            ObjectNode tree = runs.has("defaults") && runs.get("defaults").isObject()
                    ? ((ObjectNode) runs.get("defaults")).deepCopy() : SpecReader.JSON_MAPPER.createObjectNode();
            JsonTrees.deepMerge(tree, entry);
            if (!tree.has("name")) tree.put("name", stem(f));
            tree.put("log", f.toAbsolutePath().toString());
            items.add(new Item(name, f.getParent(), tree));
        }
        if (!undescribed.isEmpty()) failures.err().println(hint(undescribed, runs != null));
        items.sort(java.util.Comparator.comparing(Item::name));
        skipped.sort(java.util.Comparator.comparing(Fleet.Skipped::file));
    }

    /**
     * What an entry of the folder is to the batch, asked in this order: a hidden name ("."), the batch's own output, a
     * link leading outside the folder, a folder, not a regular file (a pipe, a socket, a device) or a link to nothing,
     * an empty file (no bytes, or white space alone), else a file to read; and, of a run file (not runs.yaml), its
     * {@link Glance} (null otherwise). A run file is read once, by its glance: only one the glance cannot read is asked
     * whether it is empty, so that white space a parser refuses (a form feed, a vertical tab) is still an empty file.
     */
    record Entry(Kind kind, Glance glance) {
        enum Kind { HIDDEN, OWN, OUTSIDE, FOLDER, NOT_A_FILE, DANGLING, EMPTY, FILE }

        static Entry of(Path f, Outputs outputs, Boundary boundary, java.util.concurrent.atomic.AtomicLong kept) {
            String name = f.getFileName().toString();
            boolean runFile = isRunFile(f) && !name.equals(RUNS_FILE);
            if (name.startsWith(".")) return new Entry(Kind.HIDDEN, null);
            // the entry's own attributes, read once: an entry that is no symbolic link is what they say, inside the
            // folder it is listed in; a link (or an entry they cannot be read of) is asked each question, the link
            // followed (a listing of 10,000 run files took some 18 system calls a file that way, reading it
            // included, and 7 this way)
            java.nio.file.attribute.BasicFileAttributes a = attributes(f);
            Kind kind;
            if (a == null || a.isSymbolicLink()) {
                kind = outputs.isOwn(f, null) ? Kind.OWN
                        : !boundary.contains(f) ? Kind.OUTSIDE : Files.isDirectory(f) ? Kind.FOLDER
                        : !Files.isRegularFile(f) ? (Files.exists(f) ? Kind.NOT_A_FILE : Kind.DANGLING)
                        : !runFile && isEmpty(f, -1) ? Kind.EMPTY : Kind.FILE;
            } else {
                kind = outputs.isOwn(f, a) ? Kind.OWN
                        : !boundary.containsNonLink(f) ? Kind.OUTSIDE : a.isDirectory() ? Kind.FOLDER
                        : !a.isRegularFile() ? Kind.NOT_A_FILE
                        : !runFile && isEmpty(f, a.size()) ? Kind.EMPTY : Kind.FILE;
            }
            if (kind != Kind.FILE || !runFile) return new Entry(kind, null);
            Glance g = Glance.of(f, kept, a == null || a.isSymbolicLink() ? -1 : a.size());
            boolean empty = g.error() != null && (SpecReader.EMPTY.equals(g.error().expected()) || isEmpty(f, -1));
            return empty ? new Entry(Kind.EMPTY, null) : new Entry(kind, g);
        }
    }

    /**
     * What the batch takes of a run file when it lists the folder: why it is no run file (null when it is one), whether
     * it names its log, the files it names; or the error that stops it being read. The tree itself is kept for the run's
     * advice while the run files kept so far come to {@link BatchCommand#KEPT_BYTES} or less (a fleet of 10,000 run
     * files keeps them all), else parsed again when the run is advised, so that a batch of any size holds a bounded
     * number of trees; {@link #take} hands it over once.
     */
    record Glance(String notARunFile, boolean namesLog, List<Path> named, SpecException error,
                  java.util.concurrent.atomic.AtomicReference<JsonNode> tree) {
        /** The parsed tree, the first time it is asked for while kept; null after that, or where it was not kept. */
        JsonNode take() { return tree == null ? null : tree.getAndSet(null); }

        static Glance of(Path f, java.util.concurrent.atomic.AtomicLong kept) { return of(f, kept, -1); }

        /** {@code size}: the file's size where its entry's attributes gave it, else negative. */
        static Glance of(Path f, java.util.concurrent.atomic.AtomicLong kept, long size) {
            try {
                JsonNode n = SpecReader.parse(f);
                String why = BatchCommand.notARunFile(n);
                if (why != null) return new Glance(why, false, List.of(), null, null);
                boolean keep = kept.addAndGet(size >= 0 ? size : sizeOf(f)) <= KEPT_BYTES;
                return new Glance(null, n.has("log"), BatchCommand.named(f, n), null,
                        keep ? new java.util.concurrent.atomic.AtomicReference<>(n) : null);
            } catch (SpecException e) {
                return new Glance(null, false, List.of(), e, null);
            }
        }

        private static long sizeOf(Path f) {
            try {
                return Files.size(f);
            } catch (IOException e) {
                return KEPT_BYTES;   // read again when advised, where the reader reports what it cannot read
            }
        }
    }

    /**
     * The bytes of run files whose parsed trees a batch keeps from its listing to their advice: 64 MiB. A tree takes
     * about three times its text on the heap (bench/fleet.py's 10,000 run files, 18 MB of JSON, kept whole: peak
     * resident 511 MB against 452), so at most some 200 MB under the batch's 768 MB heap (bin/train-advisor). Parsing a
     * run file once rather than twice: B/A CPU 0.976 over four pairs of that batch (bench/ab.sh, the same reports).
     */
    static final long KEPT_BYTES = 64L << 20;

    /**
     * Entries of the folder whose answers ({@link Entry}) the listing works out at once, on every core, before it takes
     * them in order: a folder of up to this many in one part (bench/fleet.py's 10,000 runs and their logs), a larger one
     * a part at a time, so that the answers held at once stay a few MB (a million entries' took some 100 MB).
     */
    static final int LISTING_PART = 16_384;

    /**
     * An entry's attributes, the entry itself rather than where it leads if it is a link; null where they cannot be
     * read.
     */
    private static java.nio.file.attribute.BasicFileAttributes attributes(Path f) {
        try {
            return Files.readAttributes(f, java.nio.file.attribute.BasicFileAttributes.class,
                    java.nio.file.LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            return null;
        }
    }

    /** A file of no bytes, or of white space alone; {@code size}, its size where known, else negative. */
    private static boolean isEmpty(Path f, long size) {
        try {
            if (size < 0) size = Files.size(f);
            if (size == 0) return true;
            if (size > 4096) return false;
            return Files.readString(f, java.nio.charset.StandardCharsets.ISO_8859_1).isBlank();
        } catch (IOException e) {
            return false;   // the reader reports what cannot be read
        }
    }

    /** The fields of a run file that name another file, read with it: its log, nccl-tests output, topology, config. */
    static final List<String> NAMED_FILES = List.of("/log", "/nccl_tests", "/topology", "/config", "/cluster/intra_node/nccl_tests",
            "/cluster/inter_node/nccl_tests");

    /** The files a run file (or a runs.yaml entry) names, as absolute paths: relative names are relative to its folder. */
    static List<Path> named(Path runFile, JsonNode tree) {
        List<Path> out = new ArrayList<>();
        Path folder = runFile.toAbsolutePath().getParent();
        for (String pointer : NAMED_FILES) {
            JsonNode v = tree.at(pointer);
            if (!v.isTextual()) continue;
            try {
                out.add(folder.resolve(v.asText()).toAbsolutePath().normalize());
            } catch (java.nio.file.InvalidPathException e) {
                // the reader reports the bad name with the run file
            }
        }
        return out;
    }

    /** What a report of train-advisor is called when the batch meets one in its folder. */
    static final String REPORT = "a report train-advisor wrote, not a run";

    /** Top-level fields one of which every run file has. */
    static final List<String> RUN_FIELDS = List.of("cluster", "model", "training", "parallel", "log", "metrics");

    /** Why a parsed JSON or YAML file is not a run file (a report train-advisor wrote, another tool's file), or null. */
    static String notARunFile(JsonNode n) {
        JsonNode first = n.isArray() && !n.isEmpty() ? n.get(0) : n;
        if (first.has("prediction") && first.has("diagnoses") || n.has("layouts")
                || n.has("format") && n.has("steps") && n.has("configuration")) return REPORT;
        if (!n.isObject()) return "not a run file: " + (n.isArray() ? "a list" : "a single value") + ", not a mapping of fields";
        for (String field : RUN_FIELDS) if (n.has(field)) return null;
        return "not a run file: it has none of the fields " + String.join(", ", RUN_FIELDS);
    }

    /** Logs are recognised by their first megabyte. */
    static final int HEAD_BYTES = 1 << 20;

    /** Why a file that is no run file is not a training log to advise, or null when it is one of a known format. */
    static String notATrainingLog(Path f) {
        byte[] head;
        try (java.io.InputStream in = dev.trainadvisor.input.InputFiles.open(f, "a run file or a training log")) {
            head = in.readNBytes(HEAD_BYTES);
        } catch (IOException e) {
            throw new SpecException(f.toString(), null, "a readable file: " + e.getMessage());
        }
        if (head.length == 0) return "empty";
        for (byte b : head) if (b == 0) return "not text: a binary file";
        String text = new String(head, java.nio.charset.StandardCharsets.UTF_8);
        if (text.startsWith("\uFEFF")) text = text.substring(1);
        if (isReport(text)) return REPORT;
        String format;
        try {
            format = dev.trainadvisor.ingest.LogFormats.detectAndParse(text, f.toString()).format();
        } catch (SpecException e) {
            return "neither a run file nor a log of a known format";
        }
        if (format.equals("nccl-tests")) return "nccl-tests output, not a training run (a run file names it with nccl_tests:)";
        if (format.equals("nvidia-smi-topo"))
            return "nvidia-smi topo -m output, not a training run (a run file names it with topology:)";
        return null;
    }

    /** An html, Markdown or csv report of train-advisor, by its first line. */
    static boolean isReport(String text) {
        String first = text.lines().findFirst().orElse("");
        return text.startsWith("<!DOCTYPE html>") && text.lines().limit(3).anyMatch(l -> l.contains("<title>train-advisor"))
                || first.startsWith("# train-advisor: ") || first.equals(BatchTable.of(List.of(), List.of()).csv().strip());
    }

    /**
     * The files this batch writes ({@link #ownOutputs}), each with its file key (device and inode) where it exists when
     * the folder is listed, read once rather than for every entry.
     */
    record Outputs(List<Path> paths, List<Path> absolute, List<Object> keys) {
        static Outputs of(List<Path> paths) {
            List<Path> absolute = new ArrayList<>();
            List<Object> keys = new ArrayList<>();
            for (Path o : paths) {
                absolute.add(o.toAbsolutePath().normalize());
                Object key = null;
                try {
                    key = Files.readAttributes(o, java.nio.file.attribute.BasicFileAttributes.class).fileKey();
                } catch (IOException e) {
                    // not there (yet): only its path can match
                }
                keys.add(key);
            }
            return new Outputs(List.copyOf(paths), absolute, java.util.Collections.unmodifiableList(keys));
        }

        /**
         * Whether {@code f} is one of these files: the same path, or the same file (Files#isSameFile). {@code a}: the
         * entry's own attributes where it is no symbolic link, so that its file key is its file's; null to ask the file
         * system.
         */
        boolean isOwn(Path f, java.nio.file.attribute.BasicFileAttributes a) {
            Path af = f.toAbsolutePath().normalize();
            for (int i = 0; i < paths.size(); i++) {
                if (af.equals(absolute.get(i))) return true;
                Object key = keys.get(i);
                if (a != null && a.fileKey() != null) {
                    // an output that was not there when the folder was listed is no entry of it (the batch writes
                    // its outputs after the advice), unless by its path
                    if (key != null && key.equals(a.fileKey())) return true;
                    continue;
                }
                try {
                    Path o = paths.get(i);
                    if (Files.exists(o) && Files.isSameFile(f, o)) return true;
                } catch (IOException e) {
                    // not the same file as far as can be told
                }
            }
            return false;
        }
    }

    /** What this batch writes: the --out file, and the file standard output is redirected to, if any. */
    static List<Path> ownOutputs(Path file) {
        List<Path> out = new ArrayList<>();
        if (file != null) {
            out.add(file);
            out.add(runPagesFolder(file));
        }
        String stdout = linkTarget("/proc/self/fd/1");
        if (stdout != null && stdout.startsWith("/") && Files.isRegularFile(Path.of(stdout))) out.add(Path.of(stdout));
        return out;
    }

    /**
     * Where a /proc/self/fd link points ("/dev/pts/3", "/home/me/report.csv", "pipe:[1234]"), or null where there is
     * no such link (not Linux).
     */
    static String linkTarget(String link) {
        try {
            return Files.readSymbolicLink(Path.of(link)).toString();
        } catch (IOException | UnsupportedOperationException | SecurityException | java.nio.file.InvalidPathException e) {
            return null;
        }
    }

    /** What standard error is: the target of /proc/self/fd/2, or null where that cannot be read. */
    static String stderrTarget() { return linkTarget("/proc/self/fd/2"); }

    /**
     * Whether to draw the progress bar: as --progress or --no-progress says, else when standard error is a terminal
     * (Java 17 has no isatty(2): a terminal is a /dev/pts/N or /dev/tty* device; where /proc cannot tell, a console).
     */
    static boolean showProgress(Boolean option, String stderrTarget) {
        if (option != null) return option;
        if (stderrTarget == null) return System.console() != null;
        return stderrTarget.matches("/dev/pts/\\d+") || stderrTarget.startsWith("/dev/tty");
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

    static String stem(Path p) { return stem(p.getFileName().toString()); }

    /** A file name without its extension. */
    static String stem(String name) {
        int dot = name.lastIndexOf('.');
        return dot > 0 ? name.substring(0, dot) : name;
    }

    static boolean isRunFile(Path p) {
        String n = p.getFileName().toString().toLowerCase(Locale.ROOT);
        return n.endsWith(".json") || n.endsWith(".yaml") || n.endsWith(".yml");
    }

    /**
     * A one-line progress bar on standard error, drawn only on a terminal: the runs done of all, their rate so far and
     * the time left at that rate, and the run just finished.
     */
    static final class Progress {
        private final PrintWriter err;
        private final int total;
        private final boolean on;
        private final long startNanos = System.nanoTime();
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
            done++;
            // redraw at most ten times a second: a bar, not a log
            if (done > 1 && done < total && now - lastDrawNanos < 100_000_000L) return;
            lastDrawNanos = now;
            err.print("\r" + line(done, total, (now - startNanos) / 1e9, name) + "\u001B[K");
            err.flush();
        }

        /** "[#######       ] 230/460  41.2 runs/s, 0:06 left  run.yaml": the rate and time left once a run is done. */
        static String line(int done, int total, double elapsedS, String name) {
            int width = 30, filled = total == 0 ? width : (int) ((long) done * width / total);
            StringBuilder b = new StringBuilder("[").append("#".repeat(filled)).append(" ".repeat(width - filled)).append("] ")
                    .append(done).append('/').append(total);
            if (done > 0 && elapsedS > 0) {
                double rate = done / elapsedS;
                b.append(String.format(java.util.Locale.ROOT, "  %.1f runs/s, %s left", rate, clock((total - done) / rate)));
            }
            return b.append("  ").append(name).toString();
        }

        /** Seconds as m:ss, or h:mm:ss from an hour. */
        static String clock(double seconds) {
            long s = Math.round(seconds);
            return s >= 3600 ? String.format(java.util.Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
                    : String.format(java.util.Locale.ROOT, "%d:%02d", s / 60, s % 60);
        }

        synchronized void clear() {
            if (!on) return;
            err.print("\r\u001B[K");
            err.flush();
        }
    }
}
