package dev.trainadvisor.spec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.input.SpecException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The framework profiles: one file per framework in knowledge-base/frameworks/ (its README gives the schema), each
 * read strictly (an unknown key, a fact without its source, a value outside its enumeration is an error naming the
 * file and the field) and resolved at each of its versions. {@link #builtIn()} holds the shipped ones; {@link #with}
 * adds a folder of a team's own.
 */
public final class Frameworks {
    /** The profile a run takes when nothing names its framework. */
    public static final String DEFAULT = "generic";

    private static volatile Frameworks builtIn;

    /**
     * A framework at each of its versions; {@code since}: the day each dated version began (a version's
     * {@code since} fact in its profile), the undated one being the earliest; {@code fromRelease}: the first release of
     * the framework's package with each version's behaviour (its {@code from_release} fact), the one without being
     * the earliest.
     */
    public record Profile(String key, List<String> aliases, String defaultVersion, Map<String, Framework> versions,
                          Map<String, java.time.LocalDate> since, Map<String, String> fromRelease) {
        public Framework at(String version) { return versions.get(version == null ? defaultVersion : version); }

        /**
         * This profile as a log of {@code format} can have run it: the versions whose facts name the format (a version
         * may name it in its own facts: NeMo 2.0 prints ProgressPrinter's lines, Megatron-Bridge, the profile's default,
         * Megatron-LM's), the profile's default among them, else the newest of them. The profile itself where every
         * version names it.
         */
        public Profile readingLogFormat(String format) {
            Map<String, Framework> kept = new LinkedHashMap<>();
            versions.forEach((v, f) -> {
                if (f.logFormats().contains(format)) kept.put(v, f);
            });
            if (defaultVersion == null || kept.size() == versions.size() || kept.isEmpty()) return this;
            // else the one begun last: the version current at the end of time
            String dflt = kept.containsKey(defaultVersion) ? defaultVersion : currentOn(kept.keySet(), java.time.LocalDate.MAX);
            Map<String, java.time.LocalDate> keptSince = new TreeMap<>(since);
            keptSince.keySet().retainAll(kept.keySet());
            Map<String, String> keptRelease = new TreeMap<>(fromRelease);
            keptRelease.keySet().retainAll(kept.keySet());
            return new Profile(key, aliases, dflt, Collections.unmodifiableMap(kept), Collections.unmodifiableMap(keptSince),
                    Collections.unmodifiableMap(keptRelease));
        }

        /**
         * The version a log that states its package's {@code release} ran (DeepSpeed's "DeepSpeed info: version="):
         * of the versions whose from_release is the latest not after it (else the one without), the one; where several
         * share it (Megatron-DeepSpeed's 2024-01 and 2024-08 both run DeepSpeed 0.12.4 or later, and differ by a
         * commit of its own), the one current on the log's {@code date}, else the earliest of them. Null where the log
         * states no release or the profile's versions are not told apart by release.
         */
        public String versionOfRelease(String release, java.time.LocalDate date) {
            if (release == null || fromRelease.isEmpty()) return null;
            String bestFrom = null;
            for (String from : fromRelease.values())
                if (compareReleases(from, release) <= 0 && (bestFrom == null || compareReleases(from, bestFrom) > 0))
                    bestFrom = from;
            List<String> reached = new ArrayList<>();
            for (String v : versions.keySet())
                if (java.util.Objects.equals(bestFrom, fromRelease.get(v))) reached.add(v);   // bestFrom null: the one without
            String current = currentOn(reached, date);
            return current != null ? current : earliestOf(reached);
        }

        /** Whether another version names the same from_release as {@code version}: the log's day, not its release, chose. */
        public boolean sharesRelease(String version) {
            String from = fromRelease.get(version);
            return from != null && fromRelease.values().stream().filter(from::equals).count() > 1;
        }

        /**
         * The version that can have run a log printed on {@code date} (null: a log without a date): the default, unless
         * it began after that day, which no log of it can precede; then the version current on that day. A version is
         * an upper bound from a date, never a lower one (a team may run an older release), so a default the date allows
         * stays.
         */
        public String versionOn(java.time.LocalDate date) {
            java.time.LocalDate began = since.get(defaultVersion);
            if (date == null || began == null || !began.isAfter(date)) return defaultVersion;
            return currentOn(versions.keySet(), date);
        }

        /**
         * Of {@code among}, the version current on {@code date}: the one begun last by then, else the undated one (the
         * earliest); null for a null date, and where none had begun and none is undated.
         */
        private String currentOn(java.util.Collection<String> among, java.time.LocalDate date) {
            if (date == null) return null;
            String current = null;
            java.time.LocalDate latest = null;
            for (String v : among) {
                java.time.LocalDate s = since.get(v);
                if (s != null && !s.isAfter(date) && (latest == null || s.isAfter(latest))) {
                    current = v;
                    latest = s;
                }
            }
            return current != null ? current : earliestOf(among);
        }

        /** Of {@code among}, the one that began first: the undated one, else the one of the earliest since date. */
        private String earliestOf(java.util.Collection<String> among) {
            String earliest = null;
            for (String v : among) {
                java.time.LocalDate s = since.get(v);
                if (s == null) return v;
                if (earliest == null || s.isBefore(since.get(earliest))) earliest = v;
            }
            return earliest;
        }
    }

    private final Map<String, Profile> byKey;

    private Frameworks(Map<String, Profile> byKey) { this.byKey = Collections.unmodifiableMap(byKey); }

    public static Frameworks builtIn() {
        Frameworks f = builtIn;
        if (f == null) {
            synchronized (Frameworks.class) {
                if (builtIn == null) {
                    Map<String, Profile> m = new TreeMap<>();
                    for (String file : Resources.list("knowledge-base/frameworks", ".json")) add(m, Catalog.read(file), file);
                    builtIn = new Frameworks(m);
                }
                f = builtIn;
            }
        }
        return f;
    }

    /** These profiles and those of the JSON files in {@code dir} (a team's own frameworks); a key may not repeat. */
    public Frameworks with(Path dir) {
        Map<String, Profile> m = new TreeMap<>(byKey);
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.filter(x -> x.toString().endsWith(".json")).sorted().toList())
                add(m, SpecReader.parse(p), p.toString());
        } catch (IOException e) {
            throw new SpecException(dir.toString(), null, "a readable folder of framework profiles: " + e.getMessage());
        }
        return new Frameworks(m);
    }

    public Map<String, Profile> profiles() { return byKey; }

    /** The default profile: the layout as the step model prices it when no framework is named. */
    public Framework generic() { return byKey.get(DEFAULT).at(null); }

    /**
     * The framework {@code name} (a key or an alias, any case) at {@code version} (null: its default), or an error
     * naming the file, the field and the nearest known names.
     */
    public Framework find(String name, String version, String file, String field) {
        Profile p = profile(name);
        if (p == null) {
            Set<String> known = new TreeSet<>(byKey.keySet());
            throw new SpecException(file, field, "a framework with a profile in knowledge-base/frameworks, one of " + known
                    + ", got '" + name + "'; nearest known: " + Names.nearest(name, known, 3));
        }
        if (version != null && !p.versions().containsKey(version))
            throw new SpecException(file, field.replace("framework", "framework_version"), "a version of " + p.key()
                    + " its profile describes, one of " + p.versions().keySet() + ", got '" + version + "'");
        return p.at(version);
    }

    private Profile profile(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        Profile p = byKey.get(n);
        if (p != null) return p;
        for (Profile q : byKey.values()) if (q.aliases().contains(n)) return q;
        String norm = Names.normalize(name);
        for (Profile q : byKey.values()) if (Names.normalize(q.key()).equals(norm)) return q;
        return null;
    }

    /** The framework whose printed TFLOPS follow {@code convention}, at the version that prints it; null if none does. */
    public Framework byConvention(FlopsConvention convention) {
        if (convention == null) return null;
        for (Profile p : byKey.values()) {
            Framework f = p.at(null);
            if (!f.tflopsConventions().contains(convention.key)) continue;
            // the version whose own convention it is (Megatron-Core before 0.12 printed megatron-legacy)
            for (Framework v : p.versions().values())
                if (v.flopsConvention() != null && v.flopsConvention().value() == convention) return v;
            return f;
        }
        return null;
    }

    /** The profile of the framework whose logs are of {@code format} (ingest's key); null if none. */
    public Profile profileOfLogFormat(String format) {
        if (format == null) return null;
        for (Profile p : byKey.values())
            for (Framework f : p.versions().values()) if (f.logFormats().contains(format)) return p.readingLogFormat(format);
        return null;
    }

    // ---------------------------------------------------------------- reading a profile

    private static final Set<String> TOP = Set.of("key", "name", "aliases", "code", "named_by", "default_version",
            "versions", "zero", "bucket", "bf16_gradient_flag", "attention_kernel", "attention_kernel_by_architecture",
            "elementwise_kernels",
            "host_seconds_per_step", "flops_convention", "offload", "amp", "layer_launches",
            "compiled_attention_slowdown", "attention_kernel_without_flash", "host_launches", "elementwise_traffic",
            "cross_entropy_bytes", "recipe_zero_stage", "rank_order", "interleaved_p2p_overlap", "pipeline_scatter_gather",
            "tp_backward_overlap", "notes",
            "$comment");
    private static final Set<String> NAMED_BY = Set.of("log_formats", "tflops_conventions");
    private static final Set<String> STAGE = Set.of("gradients", "parameters", "notes");
    private static final Set<String> SYNC = Set.of("collective", "dtype", "every_micro_batch", "overlap", "overlap_when_on",
            "calls", "overlapped_calls", "backward_gather", "copies", "notes");
    private static final Set<String> FACT = Set.of("value", "source", "flag", "to_measure", "note", "notes");
    private static final Set<String> VERSION = Set.of("description", "since", "from_release", "facts");

    /** Releases compared number by number ("0.12.4" before "0.12.10"; a missing number is 0). */
    static int compareReleases(String a, String b) {
        String[] x = a.split("\\."), y = b.split("\\.");
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            long p = i < x.length ? Long.parseLong(x[i]) : 0, q = i < y.length ? Long.parseLong(y[i]) : 0;
            if (p != q) return Long.compare(p, q);
        }
        return 0;
    }

    private static void add(Map<String, Profile> m, JsonNode raw, String file) {
        Fields top = new Fields(file, "", raw);
        top.allowOnly(TOP);
        String key = top.requireString("key");
        if (m.containsKey(key)) throw top.error("key", "a key no other profile has; '" + key + "' is taken");
        List<String> aliases = new ArrayList<>();
        for (JsonNode a : raw.path("aliases")) aliases.add(a.asText().toLowerCase(Locale.ROOT));
        Map<String, Framework> versions = new LinkedHashMap<>();
        Map<String, java.time.LocalDate> since = new TreeMap<>();
        Map<String, String> fromRelease = new TreeMap<>();
        String dflt = top.string("default_version", null);
        JsonNode vs = raw.path("versions");
        if (vs.isObject() && vs.size() > 0) {
            if (dflt == null || !vs.has(dflt))
                throw top.error("default_version", "one of the versions " + names(vs) + ", got " + dflt);
            for (java.util.Iterator<Map.Entry<String, JsonNode>> it = vs.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                Fields v = new Fields(file, "versions." + e.getKey(), e.getValue());
                v.allowOnly(VERSION);
                ObjectNode merged = ((ObjectNode) raw.deepCopy());
                merged.remove("versions");
                JsonNode facts = e.getValue().path("facts");
                if (facts.isObject()) merged = (ObjectNode) JsonTrees.deepMerge(merged, facts);
                versions.put(e.getKey(), read(merged, file, e.getKey(), v.string("description", "")));
                Framework.Fact<java.time.LocalDate> began = fact(v, "since", Frameworks::day, false);
                if (began != null) since.put(e.getKey(), began.value());
                Framework.Fact<String> first = fact(v, "from_release", n -> {
                    if (!n.isTextual() || !n.asText().matches("[0-9]{1,9}(\\.[0-9]{1,9}){0,3}"))
                        throw new IllegalArgumentException("a release, numbers joined by dots (0.12.4)");
                    return n.asText();
                }, false);
                if (first != null) fromRelease.put(e.getKey(), first.value());
            }
            if (!fromRelease.isEmpty() && versions.size() - fromRelease.size() != 1)
                throw top.error("versions", "one version without a from_release (the earliest) where the others have one, "
                        + "so that a release always finds a version; " + (versions.size() - fromRelease.size()) + " have none");
        } else {
            if (dflt != null) throw top.error("default_version", "no default without versions");
            versions.put(null, read(raw, file, null, ""));
        }
        Profile profile = new Profile(key, List.copyOf(aliases), dflt, Collections.unmodifiableMap(versions),
                Collections.unmodifiableMap(since), Collections.unmodifiableMap(fromRelease));
        checkDated(top, profile, null);
        java.util.Set<String> formats = new java.util.TreeSet<>();
        for (Framework f : versions.values()) formats.addAll(f.logFormats());
        for (String format : formats) checkDated(top, profile.readingLogFormat(format), format);
        m.put(key, profile);
    }

    /**
     * A log's date always finds a version: where the default of {@code p} (the profile, or the versions a log
     * {@code format} runs under) is dated, so that a date before it looks for the version current then, all but one of
     * its versions are dated (the one the earliest).
     */
    private static void checkDated(Fields top, Profile p, String format) {
        if (p.defaultVersion() == null || !p.since().containsKey(p.defaultVersion())) return;
        int undated = p.versions().size() - p.since().size();
        if (undated != 1)
            throw top.error("versions", "one version without a since date (the earliest) where the others have one"
                    + (format == null ? "" : " among the versions a " + format + " log runs under")
                    + ", so that a log's date always finds a version; " + undated + " have none");
    }

    private static String names(JsonNode obj) {
        List<String> out = new ArrayList<>();
        obj.fieldNames().forEachRemaining(out::add);
        return out.toString();
    }

    private static Framework read(JsonNode raw, String file, String version, String description) {
        Fields top = new Fields(file, "", raw);
        Fields named = top.object("named_by");
        named.allowOnly(NAMED_BY);
        Map<Integer, Framework.Stage> zero = new TreeMap<>();
        Fields z = top.object("zero");
        if (!z.present()) throw top.error("zero", "the data-parallel collectives per ZeRO stage are required");
        for (java.util.Iterator<String> it = raw.get("zero").fieldNames(); it.hasNext(); ) {
            String s = it.next();
            if (!s.matches("[0-3]")) throw z.error(s, "a ZeRO stage, 0 to 3");
            int stage = Integer.parseInt(s);
            Fields st = z.object(s);
            st.allowOnly(STAGE);
            Framework.Sync g = sync(st.object("gradients"), true);
            Framework.Sync p = stage == 0 ? null : sync(st.object("parameters"), false);
            if (stage == 0 && st.has("parameters")) throw st.error("parameters", "none for plain data parallelism");
            if (stage == 0 && g.collective().value() != Framework.Kind.ALL_REDUCE)
                throw st.error("gradients.collective.value", "all-reduce for plain data parallelism");
            zero.put(stage, new Framework.Stage(g, p));
        }
        return new Framework(top.requireString("key"), top.string("name", top.requireString("key")), version, description,
                top.string("code", ""), Collections.unmodifiableMap(zero), fact(top, "bucket", Frameworks::bucket, true),
                fact(top, "bf16_gradient_flag", JsonNode::asText, false),
                fact(top, "attention_kernel", enumOf(AttentionKernel.class), false),
                fact(top, "attention_kernel_by_architecture", n -> {
                    Map<String, AttentionKernel> m = new TreeMap<>();
                    if (!n.isObject()) throw new IllegalArgumentException("an object of architecture to kernel");
                    n.fields().forEachRemaining(e -> m.put(e.getKey(), enumOf(AttentionKernel.class).apply(e.getValue())));
                    return Collections.unmodifiableMap(m);
                }, false),
                fact(top, "elementwise_kernels", enumOf(ElementwiseKernels.class), false),
                fact(top, "host_seconds_per_step", Frameworks::seconds, true),
                fact(top, "flops_convention", n -> {
                    FlopsConvention c = FlopsConvention.parse(n.asText());
                    if (c == null) throw new IllegalArgumentException("one of " + FlopsConvention.keys());
                    return c;
                }, false),
                strings(raw.path("named_by").path("log_formats")), strings(raw.path("named_by").path("tflops_conventions")),
                fact(top, "offload", Frameworks::offloads, false), fact(top, "amp", Frameworks::amp, false),
                fact(top, "layer_launches", Frameworks::layerLaunches, false),
                fact(top, "compiled_attention_slowdown", number(1, 10, "a factor from 1 to 10"), false),
                fact(top, "attention_kernel_without_flash", n -> {
                    AttentionKernel k = enumOf(AttentionKernel.class).apply(n);
                    if (k.flash()) throw new IllegalArgumentException("unfused, math or eager (a kernel without flash)");
                    return k;
                }, false),
                fact(top, "host_launches", Frameworks::hostLaunches, false),
                fact(top, "elementwise_traffic", number(1, 10, "a factor over the minimal bytes, from 1 to 10"), false),
                fact(top, "cross_entropy_bytes", number(2, 100, "bytes per token and vocabulary entry, from 2 to 100"), false),
                fact(top, "recipe_zero_stage", n -> {
                    if (!n.isInt() || n.asInt() < 0 || n.asInt() > 3) throw new IllegalArgumentException("a ZeRO stage, 0 to 3");
                    return n.asInt();
                }, false),
                fact(top, "rank_order", n -> {
                    RankOrder o = n.isTextual() ? RankOrder.byKey(n.asText()) : null;
                    if (o == null) throw new IllegalArgumentException("one of " + RankOrder.keys()
                            + " (innermost first, as a run file writes it)");
                    return o;
                }, false),
                fact(top, "interleaved_p2p_overlap", Frameworks::bool, false),
                fact(top, "pipeline_scatter_gather", Frameworks::bool, false),
                fact(top, "tp_backward_overlap", Frameworks::bool, false));
    }

    /** A number from {@code lo} to {@code hi}, else {@code expected} as the message. */
    private static Function<JsonNode, Double> number(double lo, double hi, String expected) {
        return n -> {
            if (!n.isNumber() || !(n.asDouble() >= lo) || n.asDouble() > hi) throw new IllegalArgumentException(expected);
            return n.asDouble();
        };
    }

    /** {@code {seconds_per_launch, overlap_power}}. */
    private static Framework.HostLaunches hostLaunches(JsonNode n) {
        JsonNode s = n.path("seconds_per_launch"), k = n.path("overlap_power");
        if (!n.isObject() || n.size() != 2 || !s.isNumber() || !k.isNumber() || !(s.asDouble() > 0) || s.asDouble() > 1e-3
                || !(k.asDouble() >= 1) || k.asDouble() > 20)
            throw new IllegalArgumentException("{seconds_per_launch (0 to 1 ms), overlap_power (1 to 20)}");
        return new Framework.HostLaunches(s.asDouble(), k.asDouble());
    }

    private static final Set<String> AMP = Set.of("zero_stages", "host_seconds_per_step", "host_seconds_per_micro_batch");

    /** {@code {zero_stages, host_seconds_per_step, host_seconds_per_micro_batch}}. */
    private static Framework.Amp amp(JsonNode n) {
        if (!n.isObject()) throw new IllegalArgumentException("{zero_stages, host_seconds_per_step, host_seconds_per_micro_batch}");
        n.fieldNames().forEachRemaining(k -> {
            if (!AMP.contains(k)) throw new IllegalArgumentException("only " + AMP + ", not '" + k + "'");
        });
        List<Integer> stages = new ArrayList<>();
        for (JsonNode st : n.path("zero_stages")) {
            if (!st.isInt() || st.asInt() < 0 || st.asInt() > 3) throw new IllegalArgumentException("zero_stages of 0 to 3");
            stages.add(st.asInt());
        }
        if (stages.isEmpty()) throw new IllegalArgumentException("zero_stages, a list of 0 to 3");
        return new Framework.Amp(List.copyOf(stages), seconds(n.path("host_seconds_per_step")),
                seconds(n.path("host_seconds_per_micro_batch")));
    }

    /** {@code {forward, backward}}: whole kernels per layer. */
    private static Framework.LayerLaunches layerLaunches(JsonNode n) {
        JsonNode f = n.path("forward"), b = n.path("backward");
        if (!n.isObject() || n.size() != 2 || !f.isInt() || !b.isInt() || f.asInt() < 0 || b.asInt() < 0
                || f.asInt() > 1000 || b.asInt() > 1000)
            throw new IllegalArgumentException("{forward, backward}, kernels per layer from 0 to 1000");
        return new Framework.LayerLaunches(f.asInt(), b.asInt());
    }

    private static final Set<String> OFFLOADS = Set.of("host_optimizer", "launcher", "ratio_stages", "ratio_flag");
    private static final Set<String> LAUNCHERS = Set.of("torchrun", "deepspeed");

    /** {@code {host_optimizer, launcher, ratio_stages?, ratio_flag?}}. */
    private static Framework.Offloads offloads(JsonNode n) {
        if (!n.isObject()) throw new IllegalArgumentException("{host_optimizer, launcher, ratio_stages, ratio_flag}");
        n.fieldNames().forEachRemaining(k -> {
            if (!OFFLOADS.contains(k)) throw new IllegalArgumentException("only " + OFFLOADS + ", not '" + k + "'");
        });
        String opt = n.path("host_optimizer").asText("");
        if (!Hosts.builtIn().optimizers().containsKey(opt))
            throw new IllegalArgumentException("host_optimizer one of " + Hosts.builtIn().optimizers().keySet());
        String launcher = n.path("launcher").asText("");
        if (!LAUNCHERS.contains(launcher)) throw new IllegalArgumentException("launcher one of " + LAUNCHERS);
        List<Integer> stages = new ArrayList<>();
        for (JsonNode st : n.path("ratio_stages")) {
            if (!st.isInt() || st.asInt() < 0 || st.asInt() > 3) throw new IllegalArgumentException("ratio_stages of 0 to 3");
            stages.add(st.asInt());
        }
        return new Framework.Offloads(opt, launcher, List.copyOf(stages),
                n.hasNonNull("ratio_flag") ? n.get("ratio_flag").asText() : null);
    }

    private static Framework.Sync sync(Fields s, boolean gradients) {
        if (!s.present()) throw s.error("", "the " + (gradients ? "gradient" : "parameter") + " collective is required");
        s.allowOnly(SYNC);
        Framework.Fact<Framework.Kind> kind = fact(s, "collective", enumOf(Framework.Kind.class), true);
        Set<Framework.Kind> allowed = gradients
                ? Set.of(Framework.Kind.ALL_REDUCE, Framework.Kind.REDUCE_SCATTER, Framework.Kind.REDUCE)
                : Set.of(Framework.Kind.ALL_GATHER, Framework.Kind.BROADCAST);
        if (!allowed.contains(kind.value()))
            throw s.error("collective.value", "one of " + allowed.stream().map(Framework.Kind::key).sorted().toList()
                    + " for the " + (gradients ? "gradients" : "parameters") + ", got " + kind.value().key());
        return new Framework.Sync(kind, fact(s, "dtype", enumOf(Framework.Dtype.class), true),
                fact(s, "every_micro_batch", Frameworks::bool, true), fact(s, "overlap", enumOf(Framework.Overlap.class), true),
                fact(s, "overlap_when_on", enumOf(Framework.Overlap.class), false),
                fact(s, "calls", enumOf(Framework.Calls.class), true),
                fact(s, "overlapped_calls", enumOf(Framework.Calls.class), false),
                gradients ? null : fact(s, "backward_gather", Frameworks::bool, false),
                fact(s, "copies", Frameworks::bool, false));
    }

    /** A fact {@code {value, source, flag?, to_measure?}}; null when absent and not required. */
    private static <T> Framework.Fact<T> fact(Fields parent, String name, Function<JsonNode, T> value, boolean required) {
        Fields f = parent.object(name);
        if (!f.present()) {
            if (required) throw parent.error(name, "a fact {value, source} is required");
            return null;
        }
        f.allowOnly(FACT);
        String source = f.requireString("source");
        if (source.isBlank()) throw f.error("source", "where the fact comes from (file and line, or a measurement)");
        JsonNode v = f.raw("value");
        if (v == null) throw f.error("value", "a value is required (null where the framework has none)");
        T t;
        try {
            t = v.isNull() ? null : value.apply(v);
        } catch (IllegalArgumentException e) {
            throw f.error("value", e.getMessage() + ", got " + Fields.describe(v));
        }
        if (t == null && required) throw f.error("value", "a value is required");
        return new Framework.Fact<>(t, source, f.string("flag", null), f.string("to_measure", null));
    }

    /**
     * A day, {@code yyyy-mm-dd}: read by hand, as {@code LocalDate.parse} would first build java.time's formatters, a
     * cost every command's start would pay for a few dates.
     */
    private static java.time.LocalDate day(JsonNode n) {
        String s = n.isTextual() ? n.asText() : "";
        if (s.length() == 10 && s.charAt(4) == '-' && s.charAt(7) == '-') {
            try {
                return java.time.LocalDate.of(Integer.parseInt(s.substring(0, 4)), Integer.parseInt(s.substring(5, 7)),
                        Integer.parseInt(s.substring(8, 10)));
            } catch (NumberFormatException | java.time.DateTimeException e) {
                // reported below
            }
        }
        throw new IllegalArgumentException("a day, yyyy-mm-dd");
    }

    private static <E extends Enum<E>> Function<JsonNode, E> enumOf(Class<E> type) {
        return n -> {
            String s = n.asText().trim().replace('-', '_').toUpperCase(Locale.ROOT);
            for (E e : type.getEnumConstants()) if (e.name().equals(s) && n.isTextual()) return e;
            List<String> keys = new ArrayList<>();
            for (E e : type.getEnumConstants()) keys.add(e.name().toLowerCase(Locale.ROOT).replace('_', '-'));
            throw new IllegalArgumentException("one of " + keys);
        };
    }

    private static Boolean bool(JsonNode n) {
        if (!n.isBoolean()) throw new IllegalArgumentException("true or false");
        return n.asBoolean();
    }

    private static Double seconds(JsonNode n) {
        if (!n.isNumber() || !(n.asDouble() >= 0) || n.asDouble() > 60)
            throw new IllegalArgumentException("seconds per step, from 0 to 60");
        return n.asDouble();
    }

    private static Framework.Bucket bucket(JsonNode n) {
        if (n.has("elements") && n.get("elements").isNumber())
            return new Framework.Bucket(n.get("elements").asDouble(), Double.NaN, 0, 0);
        if (n.has("mb") && n.get("mb").isNumber()) return new Framework.Bucket(Double.NaN, n.get("mb").asDouble(), 0, 0);
        JsonNode p = n.path("params_per_dp");
        if (p.isArray() && p.size() == 2 && p.get(0).isNumber() && p.get(1).isNumber())
            return new Framework.Bucket(Double.NaN, Double.NaN, p.get(0).asDouble(), p.get(1).asDouble());
        throw new IllegalArgumentException("{elements: n}, {mb: m} or {params_per_dp: [floor, per rank]}");
    }

    private static List<String> strings(JsonNode a) {
        List<String> out = new ArrayList<>();
        for (JsonNode n : a) out.add(n.asText());
        return List.copyOf(out);
    }
}
