package dev.trainadvisor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Run files mutated at random, through the command line in-process: every case ends with exit 0, or exit 2 and a
 * message on standard error; never exit 1 (no --fail-on is given), a stack trace, an internal error, or a hang.
 *
 * <p>The seeds are every run file the project ships or tests with (examples, examples/rules, src/test/resources) and a
 * few that name a log, a config, an nccl-tests output and a topology. A case takes one seed and changes its tree
 * once (three cases in five) or two or three times: drop a key; a number made 0, -1, huge, NaN, infinite, scaled, a
 * string, a list, an object, a boolean or null; a string made another; an unknown key; a named file made /dev/zero,
 * /dev/null, a FIFO, a folder, a missing, empty or binary file, or another log; since issue 23 also a string or a key
 * of 10,000 to 2,000,000 characters, and a named file outside the folder (an absolute path, a '..', a symbolic link out).
 * A quarter of the cases then change the text (truncated, a duplicated key, a byte-order mark, nesting 100 to 100,000
 * deep, emptied, other line ends, a YAML anchor and an alias or a merge key), and one in twelve the bytes. One case in
 * four runs as {@code batch} of a folder of its own, which also holds, one time in two, a symbolic link out of it: there
 * nothing outside the folder may be read, so the canary that every file outside holds must appear in no output. Every
 * message is bounded: no line of standard error longer than SpecException's limit and an excerpt's ending. Case i
 * draws from {@code new Random(SEED + i)}, so a failure names the case that reproduces it. Log contents are not
 * mutated here (the log parsers have their own); hostile rule files have RuleFileFuzzTest.
 *
 * <p>{@value #DEFAULT_CASES} cases by default ({@code -Dfuzz.cases=N} for another number, {@code -Dfuzz.verbose=true} to
 * print each case's mutations and outcome). On this project's 2-core machine, {@code mvn -B -ntp test
 * -Dtest=RunFileFuzzTest -Dfuzz.cases=10000} ran the 10,000 cases in 40 to 90 s: exit 0 for 1,193, exit 2 for 8,807,
 * no failure. The same cases against the code before issue 12 (commit 8949f10) hang at case 106, whose topology is a
 * FIFO; without the special files they pass there too.
 */
class RunFileFuzzTest {
    static final long SEED = 20261201L;
    static final int DEFAULT_CASES = 10_000;
    static final Duration PER_CASE = Duration.ofSeconds(10);

    static final ObjectMapper JSON = new ObjectMapper();
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER));
    static final JsonNodeFactory F = JsonNodeFactory.instance;
    static final Path SAMPLES = Path.of("../shared/samples/logs").toAbsolutePath();
    static final Path CONFIG = Path.of("src/test/resources/internevo/7B_isp_sft.py").toAbsolutePath();

    @TempDir
    static Path dir;
    static Path fifo, outside;

    /** What every file outside a batch's folder holds, and no output of a batch may. */
    static final String CANARY = "CANARY-0f1e2d3c";
    static List<Seed> seeds;

    /** A run file to mutate: its name and text. */
    record Seed(String name, String text) {}

    @BeforeAll
    static void setUp() throws Exception {
        seeds = new ArrayList<>();
        for (String folder : List.of("examples", "examples/rules", "src/test/resources/runs", "src/test/resources/bad",
                "src/test/resources/readme")) {
            try (Stream<Path> s = Files.list(Path.of(folder))) {
                for (Path p : s.filter(f -> f.toString().matches(".*\\.(ya?ml|json)$")).sorted().toList())
                    seeds.add(new Seed(p.toString(), Files.readString(p)));
            }
        }
        assertTrue(seeds.size() >= 19, "the shipped and test run files: " + seeds.size());
        // runs that name files: a training log, an InternEvo config, nccl-tests outputs and a topology
        seeds.add(new Seed("with-log", """
                cluster: {preset: dgx-a100-80gb}
                model: internlm-7b
                training: {seq_len: 2048, micro_batch_size: 2}
                log: %s
                """.formatted(SAMPLES.resolve("internlm-1.log"))));
        seeds.add(new Seed("with-config", "cluster: {preset: dgx-a100-80gb}\nconfig: " + CONFIG + "\n"));
        seeds.add(new Seed("with-topology", """
                cluster: dgx-a100-80gb
                model: internlm-7b
                training: {seq_len: 2048, micro_batch_size: 2, micro_batches: 4}
                topology: %s
                nccl_tests: %s
                """.formatted(SAMPLES.resolve("nvidia-smi-topo-1.log"), SAMPLES.resolve("nccl-tests-2.log"))));
        seeds.add(new Seed("with-link-measurements", """
                cluster: {preset: dgx-h100, nodes: 2, intra_node: {link: NVLink4, nccl_tests: %s},
                          inter_node: {link: IB-NDR, nccl_tests: %s}}
                model: mixtral-8x7b
                parallel: {tp: 2, ep: 4, pp: 2}
                training: {seq_len: 4096, micro_batch_size: 1, micro_batches: 8}
                metrics: {step_time_s: 5.5}
                """.formatted(SAMPLES.resolve("nccl-tests-2.log"), SAMPLES.resolve("nccl-tests-3.log"))));
        seeds.add(new Seed("inline-moe", """
                cluster: {gpu: {peak_tflops: {bf16: 989}, hbm_gb: 80, hbm_gbps: 3350}, nodes: 1, gpus_per_node: 8,
                          intra_node: {link: NVLink4}}
                model: {layers: 4, hidden: 1024, heads: 16, kv_heads: 4, ffn_hidden: 2816, vocab: 32000,
                        moe: {experts: 8, top_k: 2, ffn_hidden: 1408}}
                parallel: {tp: 2, ep: 2}
                training: {seq_len: 2048, micro_batch_size: 4, micro_batches: 2, recompute: selective}
                metrics: {tokens_per_gpu_per_s: 20000, mfu: 0.3}
                """));
        // the files outside a batch's folder, each holding the canary: a YAML that fails to parse on the canary's line,
        // a "log" whose every token is the canary
        outside = Files.createDirectories(dir.resolve("outside"));
        Files.writeString(outside.resolve("secret.yaml"), "user: admin\npassword: " + CANARY + "\n  broken: [yaml\n");
        Files.writeString(outside.resolve("secret.log"), (CANARY + " iteration 1/ 10 | elapsed time per iteration (ms): 1.0 |\n").repeat(3));
        // the files a run may name that are not what it expects
        Files.createDirectories(dir.resolve("a-folder"));
        Files.writeString(dir.resolve("empty.log"), "");
        byte[] bytes = new byte[4096];
        new Random(SEED).nextBytes(bytes);
        Files.write(dir.resolve("binary.log"), bytes);
        Path f = dir.resolve("a-fifo");
        try {
            Process p = new ProcessBuilder("mkfifo", f.toString()).inheritIO().start();
            if (p.waitFor() == 0) fifo = f;
        } catch (IOException e) {
            fifo = null;   // no mkfifo here: the other special files still run
        }
    }

    /** What a named file is made in a case, and what the message then says. */
    static final Map<String, String> SPECIAL = new TreeMap<>(Map.of(
            "/dev/zero", "not a regular file",
            "a-folder", "this is a folder",
            "missing.log", "does not exist",
            "a-fifo", "not a regular file"));

    // ------------------------------------------------------------------ the named files, one by one

    @Test
    void aNamedFileThatIsNoRegularFileIsExitTwoSayingSo() throws Exception {
        for (String key : List.of("log", "config", "topology", "nccl_tests")) {
            for (Map.Entry<String, String> e : SPECIAL.entrySet()) {
                if (e.getKey().equals("a-fifo") && fifo == null) continue;
                Path run = dir.resolve("named-" + key + ".yaml");
                Files.writeString(run, """
                        cluster: {preset: dgx-a100-80gb}
                        model: internlm-7b
                        training: {seq_len: 2048, micro_batch_size: 2}
                        %s: %s
                        """.formatted(key, e.getKey()));
                CliTest.Result r = runCase(run, List.of("advise", run.toString()));
                assertEquals(2, r.code(), key + ": " + e.getKey() + "\n" + r.err());
                assertTrue(r.err().startsWith("error: " + run) && r.err().contains(key + "'")
                        && r.err().contains(e.getValue()), key + ": " + e.getKey() + ": " + r.err());
            }
        }
        // and as the log of the parse command
        CliTest.Result r = runCase(null, List.of("parse", "/dev/zero"));
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("/dev/zero") && r.err().contains("not a regular file"), r.err());
    }

    // ------------------------------------------------------------------ the fuzz

    @Test
    void mutatedRunFilesExitZeroOrTwoWithAMessage() throws Exception {
        int cases = Integer.getInteger("fuzz.cases", DEFAULT_CASES);
        List<String> failures = new ArrayList<>();
        Map<Integer, Integer> codes = new TreeMap<>();
        long start = System.nanoTime();
        for (int i = 0; i < cases && failures.size() < 20; i++) {
            Random r = new Random(SEED + i);
            Seed seed = seeds.get(r.nextInt(seeds.size()));
            Case c = mutate(seed, r, i);
            boolean batch = r.nextInt(4) == 0;
            Path folder = batch ? Files.createDirectories(dir.resolve("batch-" + i)) : dir;
            Path run = folder.resolve("case-" + i + c.extension());
            Files.write(run, c.bytes());
            List<String> args = new ArrayList<>(List.of(batch ? "batch" : "advise", (batch ? folder : run).toString()));
            if (batch && r.nextBoolean()) Files.createSymbolicLink(folder.resolve(r.nextBoolean() ? "leak.yaml" : "leak.log"),
                    outside.resolve(r.nextBoolean() ? "secret.yaml" : "secret.log"));
            if (batch) args.addAll(List.of("--format", List.of("json", "csv", "md", "html").get(r.nextInt(4))));
            else if (r.nextInt(5) == 0) args.addAll(List.of("--format", r.nextBoolean() ? "md" : "html"));
            String what = "case " + i + " (" + (batch ? "batch, " : "") + seed.name() + ": " + c.what() + ")";
            try {
                CliTest.Result res = runCase(run, args);
                codes.merge(res.code(), 1, Integer::sum);
                if (Boolean.getBoolean("fuzz.verbose"))
                    System.out.println(what + " -> " + res.code() + " " + res.err().lines().findFirst().orElse(""));
                String problem = problem(res);
                if (problem == null && batch && (res.out().contains(CANARY) || res.err().contains(CANARY)))
                    problem = "a byte of a file outside the folder was read:\n" + res.err();
                if (problem == null && res.code() == 0 && args.size() == 2) problem = notJson(res.out());
                if (problem != null) failures.add(what + ": " + problem + "\n" + head(c.bytes()));
            } catch (AssertionFailedError e) {
                // a hang: the command line still holds the captured streams, so no later case can run
                failures.add(what + ": " + e.getMessage() + "\n" + head(c.bytes()));
                break;
            } catch (Throwable e) {
                failures.add(what + ": the command line threw " + e + "\n" + head(c.bytes()));
            }
            Files.deleteIfExists(run);
            if (batch) deleteTree(folder);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("run-file fuzz: %d cases in %.1f s, exit codes %s%n", cases, seconds, codes);
        assertEquals(List.of(), failures, failures.size() + " failing case(s)");
        assertTrue(codes.getOrDefault(0, 0) > cases / 20 && codes.getOrDefault(2, 0) > cases / 4,
                "the mutations reach both the advice and the errors: " + codes);
    }

    /** Runs one case with a time limit; {@code run} is null for a command that names no run file. */
    static CliTest.Result runCase(Path run, List<String> args) {
        return assertTimeoutPreemptively(PER_CASE, () -> CliTest.run(args.toArray(String[]::new)),
                () -> "no answer within " + PER_CASE.toSeconds() + " s: " + args);
    }

    /** What is wrong with a case's outcome, or null. */
    static String problem(CliTest.Result r) {
        if (r.err().contains("\tat ") || r.err().contains("Exception in thread")) return "a stack trace:\n" + r.err();
        for (String line : r.err().lines().toList())
            if (line.length() > MAX_MESSAGE_LINE) return "a line of " + line.length() + " characters on standard error:\n"
                    + line.substring(0, 300);
        if (r.code() == 0) return null;
        if (r.code() != 2) return "exit " + r.code() + ":\n" + r.err();
        if (!r.err().startsWith("error: ") && !r.err().contains("\nerror: ")) return "exit 2 without a message:\n" + r.err();
        if (r.err().contains("this is a bug")) return "an internal error:\n" + r.err();
        return null;
    }

    /** The longest line a message may be: SpecException's bound, "error: ", and an excerpt's "... (N characters)". */
    static final int MAX_MESSAGE_LINE = dev.trainadvisor.input.SpecException.MAX_LINE_CHARS + 100;

    static void deleteTree(Path p) throws IOException {
        try (Stream<Path> s = Files.walk(p)) {
            for (Path q : s.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(q);
        }
    }

    /** Why the advice printed is not JSON (a NaN or an infinity written as a bare token, say), or null. */
    static String notJson(String out) {
        try {
            JSON.readTree(out);
            return null;
        } catch (IOException e) {
            return "the advice is not JSON: " + e.getMessage().lines().findFirst().orElse("");
        }
    }

    static String head(byte[] b) {
        String s = new String(b, 0, Math.min(b.length, 600), StandardCharsets.UTF_8);
        return "--- file (" + b.length + " bytes) ---\n" + s + (b.length > 600 ? "\n..." : "");
    }

    // ------------------------------------------------------------------ mutations

    /** A mutated run file: its bytes, whether it is YAML or JSON, and what was done. */
    record Case(byte[] bytes, boolean yaml, String what) {
        String extension() { return yaml ? ".yaml" : ".json"; }
    }

    static Case mutate(Seed seed, Random r, int i) throws IOException {
        JsonNode tree;
        try {
            tree = YAML.readTree(seed.text());
        } catch (IOException e) {
            tree = null;   // a seed that is not YAML (src/test/resources/bad/syntax.yaml): text mutations only
        }
        List<String> what = new ArrayList<>();
        boolean yaml = r.nextInt(3) > 0;
        String text;
        if (tree instanceof ObjectNode root && r.nextInt(6) > 0) {
            int n = r.nextInt(5) < 3 ? 1 : 2 + r.nextInt(2);   // mostly one change: more runs stay valid and reach the advice
            for (int k = 0; k < n; k++) what.add(mutateTree(root, r));
            text = (yaml ? YAML : JSON).writerWithDefaultPrettyPrinter().writeValueAsString(root);
        } else {
            yaml = true;
            text = seed.text();
        }
        if (r.nextInt(4) == 0) {
            String[] m = mutateText(text, yaml, r);
            text = m[0];
            what.add(m[1]);
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (r.nextInt(12) == 0) {
            bytes = mutateBytes(bytes, r);
            what.add("random bytes");
        }
        return new Case(bytes, yaml, String.join("; ", what));
    }

    /** Every place in the tree: the dotted path and the node that holds it. */
    record Place(String path, JsonNode parent, String key, int index) {
        JsonNode get() { return key != null ? parent.get(key) : parent.get(index); }

        void set(JsonNode v) {
            if (key != null) ((ObjectNode) parent).set(key, v);
            else ((ArrayNode) parent).set(index, v);
        }

        void remove() {
            if (key != null) ((ObjectNode) parent).remove(key);
            else ((ArrayNode) parent).remove(index);
        }
    }

    static List<Place> places(JsonNode n, String path, List<Place> out) {
        if (n.isObject()) {
            for (String k : iterable(n.fieldNames())) {
                Place p = new Place(path.isEmpty() ? k : path + "." + k, n, k, -1);
                out.add(p);
                places(n.get(k), p.path(), out);
            }
        } else if (n.isArray()) {
            for (int i = 0; i < n.size(); i++) {
                Place p = new Place(path + "[" + i + "]", n, null, i);
                out.add(p);
                places(n.get(i), p.path(), out);
            }
        }
        return out;
    }

    static <T> List<T> iterable(java.util.Iterator<T> it) {
        List<T> l = new ArrayList<>();
        it.forEachRemaining(l::add);
        return l;
    }

    static final String[] KEYS = {"log", "config", "topology", "nccl_tests"};

    static final List<JsonNode> HUGE = List.of(F.numberNode(1e12), F.numberNode(Integer.MAX_VALUE),
            F.numberNode(Long.MAX_VALUE), F.numberNode(new java.math.BigInteger("123456789012345678901234567890")),
            F.numberNode(1e308), F.numberNode(Double.MIN_VALUE), F.numberNode(-1e308), F.numberNode(4294967297L),
            F.numberNode(1 << 20), F.numberNode(65536), F.numberNode(10_001));

    static final List<String> STRINGS = List.of("", " ", "x", "none", "full", "fp8", "NVLink5", "dgx-h100", "llama-3.1-405b",
            "A100-SXM4-80GB", "true", "1e3", "-1", "NaN", "../../../../etc/passwd", "\u0000", "\u00e9\u4e2d\ud83d\ude00",
            "a".repeat(5000), "${jndi:ldap://x}", "<script>alert(1)</script>", "--help");

    static String mutateTree(ObjectNode root, Random r) {
        List<Place> all = places(root, "", new ArrayList<>());
        int kind = r.nextInt(16);
        if (kind >= 14 && !all.isEmpty()) {
            // issue 23: a string or a key of 10,000 to 2,000,000 characters (a run file stays under its 1 MB or is refused)
            int length = new int[] {10_000, 100_000, 600_000, 2_000_000}[r.nextInt(4)];
            Place p = all.get(r.nextInt(all.size()));
            String huge = String.valueOf((char) ('a' + r.nextInt(26))).repeat(length);
            if (kind == 14) {
                p.set(F.textNode(huge));
                return p.path() + ": a string of " + length;
            }
            if (p.parent() instanceof ObjectNode o) {
                o.put(huge, 1);
                return "a key of " + length + " beside " + p.path();
            }
            p.set(F.textNode(huge));
            return p.path() + ": a string of " + length;
        }
        if (all.isEmpty() || kind >= 13) {
            // a named file made something that is not a regular file, or another file altogether
            String key = KEYS[r.nextInt(KEYS.length)];
            String target = target(r);
            if (key.equals("nccl_tests") && root.get("cluster") instanceof ObjectNode c && r.nextBoolean()) {
                String link = r.nextBoolean() ? "intra_node" : "inter_node";
                JsonNode l = c.get(link);
                (l instanceof ObjectNode lo ? lo : c.putObject(link)).put("nccl_tests", target);
                return "cluster." + link + ".nccl_tests: " + target;
            }
            root.put(key, target);
            return key + ": " + target;
        }
        Place p = all.get(r.nextInt(all.size()));
        JsonNode v = p.get();
        switch (kind) {
            case 0, 1:
                p.remove();
                return "dropped " + p.path();
            case 2:
                p.set(F.numberNode(0));
                return p.path() + ": 0";
            case 3:
                p.set(F.numberNode(-1));
                return p.path() + ": -1";
            case 4: {
                JsonNode h = HUGE.get(r.nextInt(HUGE.size()));
                p.set(h);
                return p.path() + ": " + h;
            }
            case 5: {
                double d = new double[] {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.5, 1e-300,
                        -0.0}[r.nextInt(6)];
                p.set(F.numberNode(d));
                return p.path() + ": " + d;
            }
            case 6: {
                String s = STRINGS.get(r.nextInt(STRINGS.size()));
                p.set(F.textNode(s));
                return p.path() + ": '" + (s.length() > 20 ? s.substring(0, 20) + "..." : s) + "'";
            }
            case 7:
                p.set(F.arrayNode().add(v.deepCopy()).add(1));
                return p.path() + ": a list";
            case 8:
                p.set(F.objectNode().set("x", v.deepCopy()));
                return p.path() + ": an object";
            case 9:
                p.set(F.nullNode());
                return p.path() + ": null";
            case 10:
                p.set(F.booleanNode(r.nextBoolean()));
                return p.path() + ": a boolean";
            case 11: {
                // a number scaled, or a string's neighbour among the known names
                if (v.isNumber()) {
                    double scaled = v.asDouble() * new double[] {2, 3, 10, 1000, 0.5, 1.5, 7}[r.nextInt(7)];
                    JsonNode n = v.isIntegralNumber() && scaled == Math.rint(scaled) && Math.abs(scaled) < 9e18
                            ? F.numberNode((long) scaled) : F.numberNode(scaled);
                    p.set(n);
                    return p.path() + ": " + n;
                }
                String s = STRINGS.get(6 + r.nextInt(4));
                p.set(F.textNode(s));
                return p.path() + ": " + s;
            }
            default: {
                if (p.parent() instanceof ObjectNode o) {
                    o.put("unknown_" + r.nextInt(3), 1);
                    return "an unknown key beside " + p.path();
                }
                p.remove();
                return "dropped " + p.path();
            }
        }
    }

    static String target(Random r) {
        List<String> t = new ArrayList<>(List.of("/dev/zero", "a-folder", "missing.log", "empty.log", "binary.log",
                "/dev/null", ".", SAMPLES.resolve("internlm-2.log").toString(), SAMPLES.resolve("nccl-tests-1.log").toString(),
                SAMPLES.resolve("nvidia-smi-topo-2.log").toString(), SAMPLES.resolve("megatron-1.log").toString(),
                CONFIG.toString(), dir.resolve("a-folder").toString()));
        if (fifo != null) t.add(fifo.toString());
        // issue 23: outside the folder, each way (in a batch they are refused; advise reads what the user names)
        t.addAll(List.of(outside.resolve("secret.log").toString(), "../outside/secret.log", "../../outside/secret.yaml",
                outside.resolve("secret.yaml").toString()));
        return t.get(r.nextInt(t.size()));
    }

    /** A text-level mutation: truncation, a duplicated key, a byte-order mark, deep nesting, or a file made empty. */
    static String[] mutateText(String text, boolean yaml, Random r) {
        if (yaml && r.nextInt(7) == 0) return anchored(text, r);
        switch (r.nextInt(6)) {
            case 0: {
                int at = text.isEmpty() ? 0 : r.nextInt(text.length());
                return new String[] {text.substring(0, at), "truncated at " + at};
            }
            case 1: {
                List<String> lines = new ArrayList<>(text.lines().toList());
                List<Integer> keyed = new ArrayList<>();
                for (int k = 0; k < lines.size(); k++)
                    if (lines.get(k).matches(yaml ? "\\s*[a-z_]+:.*" : "\\s*\"[a-z_]+\" : .*")) keyed.add(k);
                if (keyed.isEmpty()) return new String[] {text, "nothing to duplicate"};
                int k = keyed.get(r.nextInt(keyed.size()));
                lines.add(k + 1, lines.get(k));
                return new String[] {String.join("\n", lines) + "\n", "duplicated line " + (k + 1)};
            }
            case 2:
                return new String[] {"\uFEFF" + text, "a byte-order mark"};
            case 3: {
                int depth = new int[] {100, 1000, 5000, 100_000}[r.nextInt(4)];
                String open = r.nextBoolean() ? "[" : "{\"a\": ", close = open.equals("[") ? "]" : "}";
                String nested = open.repeat(depth) + "1" + close.repeat(depth);
                String wrapped = yaml ? "deep: " + nested + "\n" + text
                        : text.replaceFirst("\\{", "{\"deep\": " + java.util.regex.Matcher.quoteReplacement(nested) + ",");
                return new String[] {wrapped, "nesting " + depth + " deep"};
            }
            case 4:
                return new String[] {"", "empty"};
            default:
                return new String[] {text.replace("\n", "\r\n").replace(":", r.nextBoolean() ? ":\t" : " :"),
                        "line ends and colons"};
        }
    }

    /**
     * A YAML anchor on one value and an alias to it in another key's place (issue 23: the alias was read as the anchor's
     * name), or a merge key; sometimes an anchor alone, which is harmless.
     */
    static String[] anchored(String text, Random r) {
        List<String> lines = new ArrayList<>(text.lines().toList());
        List<Integer> keyed = new ArrayList<>();
        for (int k = 0; k < lines.size(); k++) if (lines.get(k).matches("\\s*[a-z_]+: [^&*{\\[|>\\s][^#]*")) keyed.add(k);
        if (keyed.size() < 2) return new String[] {text, "nothing to anchor"};
        int a = keyed.get(r.nextInt(keyed.size())), b = keyed.get(r.nextInt(keyed.size()));
        String anchor = List.of("internlm-7b", "a", "x1", "dgx-h100").get(r.nextInt(4));
        lines.set(a, lines.get(a).replaceFirst(": ", ": &" + anchor + " "));
        if (r.nextInt(4) == 0) return new String[] {String.join("\n", lines) + "\n", "an anchor alone at line " + (a + 1)};
        if (r.nextInt(5) == 0) {
            lines.add("merged:\n  <<: *" + anchor);
            return new String[] {String.join("\n", lines) + "\n", "a merge key of &" + anchor};
        }
        if (b != a) lines.set(b, lines.get(b).replaceFirst(": .*", ": *" + anchor));
        return new String[] {String.join("\n", lines) + "\n", "&" + anchor + " at line " + (a + 1) + ", *" + anchor + " at line " + (b + 1)};
    }

    static byte[] mutateBytes(byte[] b, Random r) {
        byte[] out = b.clone();
        if (out.length == 0 || r.nextInt(4) == 0) {
            out = new byte[1 + r.nextInt(2000)];
            r.nextBytes(out);
            return out;
        }
        for (int k = 0; k < 1 + r.nextInt(8); k++) out[r.nextInt(out.length)] = (byte) r.nextInt(256);
        return out;
    }
}
