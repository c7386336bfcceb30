package dev.trainadvisor.engine;

import dev.trainadvisor.facts.Diagnosis;
import dev.trainadvisor.facts.RemedyProposal;
import dev.trainadvisor.spec.Resources;
import dev.trainadvisor.input.InputFiles;
import dev.trainadvisor.input.SpecException;
import org.kie.api.KieBase;
import org.kie.api.definition.KiePackage;
import org.kie.api.definition.rule.Rule;
import org.kie.api.runtime.ClassObjectFilter;
import org.kie.api.runtime.KieSession;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Drools over the rule files: those shipped in {@code rules/*.drl} on the classpath, plus any folder of {@code *.drl}
 * a user adds. Builds the rule base once; each run gets a fresh session. What the rules conclude is read back from
 * working memory after they settle: every {@link Diagnosis} and {@link RemedyProposal} still there, so a rule can
 * retract or replace what another concluded.
 */
public final class RuleEngine {
    /** Rule firings after which a session is taken to loop (the shipped rules settle in a few hundred). */
    static final int MAX_FIRINGS = 100_000;

    /**
     * How diagnoses are listed: by severity (which the rules set from the expected share of the step, probability times
     * claimed share: Materiality#severity(double, double)); within a severity, faults the fit is sure of
     * (Diagnosis.SURE) first (something does less than it should: repairing it trades nothing away, and a
     * configuration's costs are judged against a run that works), then by expected share, then by the share claimed.
     * A fault the fit is unsure of is one candidate and never outranks a certain cause that costs more.
     */
    public static final Comparator<Diagnosis> RANKING = Comparator.comparing(Diagnosis::severity)
            .thenComparing((Diagnosis d) -> !(d.fault() && d.probability() >= Diagnosis.SURE))
            .thenComparing(Comparator.comparingDouble(Diagnosis::expectedShare).reversed())
            .thenComparing(Comparator.comparingDouble(Diagnosis::impactFraction).reversed())
            .thenComparing(Diagnosis::id).thenComparing(Diagnosis::rule);

    private static volatile RuleEngine builtIn;

    private final KieBase kieBase;
    /** This thread's session of the shipped rules, reset after each run. */
    private final ThreadLocal<KieSession> sessions = ThreadLocal.withInitial(() -> kieBase().newKieSession());
    /**
     * Every rule with its metadata, sorted by where it is declared. The shipped rules' are worked out when first asked
     * for (the catalog), not at every start: reading them means reading the 107 KB of DRL for each rule's file and line,
     * 3% of a cold advise's CPU on the rule base's thread (JFR, bench/coldstart.sh), which the advice never reads; their
     * metadata is held by RuleMetadataTest. A user's rules are described, and their metadata checked, when they load.
     */
    private final java.util.function.Supplier<List<RuleInfo>> rules;
    /** The files of a user's rules folder ({@link #withFolder}); empty for the shipped rules alone. */
    private final java.util.Set<String> userFiles;
    private final Limits limits;
    /** Set when a run's rules did not stop when halted and were left running: they are not run again. */
    private final java.util.concurrent.atomic.AtomicReference<String> abandoned;

    private RuleEngine(Map<String, String> drlByFile, java.util.Set<String> userFiles) {
        this.kieBase = KieBases.compile(drlByFile, userFiles);
        List<RuleInfo> described = describe(kieBase, drlByFile);
        DiagnosisIds.check(drlByFile, described.stream().map(RuleInfo::id).collect(java.util.stream.Collectors.toSet()));
        this.rules = () -> described;
        this.userFiles = java.util.Set.copyOf(userFiles);
        this.limits = Limits.DEFAULT;
        this.abandoned = new java.util.concurrent.atomic.AtomicReference<>();
    }

    /** The rules of {@code kieBase}, described from the DRL {@code drlByFile} gives when first asked for. */
    private RuleEngine(KieBase kieBase, java.util.function.Supplier<Map<String, String>> drlByFile) {
        this.kieBase = kieBase;
        this.rules = once(() -> describe(kieBase, drlByFile.get()));
        this.userFiles = java.util.Set.of();
        this.limits = Limits.DEFAULT;
        this.abandoned = new java.util.concurrent.atomic.AtomicReference<>();
    }

    private RuleEngine(RuleEngine e, Limits limits) {
        this.kieBase = e.kieBase;
        this.rules = e.rules;
        this.userFiles = e.userFiles;
        this.limits = limits;
        this.abandoned = e.abandoned;
    }

    /**
     * How long a run's rules may take and how many times they may fire before they are stopped, for a rule base with
     * a user's rules (the shipped rules alone settle in a few hundred firings and milliseconds).
     *
     * @param timeMillis the wall time from the first fact inserted to the rules settled
     * @param firings    rule firings; reaching them means two rules undo each other
     */
    public record Limits(long timeMillis, int firings) {
        /** 10 s (the shipped rules take 5-60 ms a run on this 2-core machine) and 100,000 firings (they need hundreds). */
        public static final Limits DEFAULT = new Limits(10_000, MAX_FIRINGS);

        public Limits {
            if (timeMillis <= 0 || firings <= 0) throw new IllegalArgumentException("limits must be positive");
        }
    }

    /** These rules under other limits. */
    public RuleEngine withLimits(Limits limits) { return new RuleEngine(this, limits); }

    public Limits limits() { return limits; }

    /** The shipped rules. */
    public static RuleEngine builtIn() {
        RuleEngine e = builtIn;
        if (e == null) {
            synchronized (RuleEngine.class) {
                if (builtIn == null) {
                    builtIn = new RuleEngine(KieBases.shipped(), RuleEngine::shipped);
                }
                e = builtIn;
            }
        }
        return e;
    }

    /** The shipped rules plus every {@code *.drl} in {@code extraFolder}. */
    public static RuleEngine withFolder(Path extraFolder) {
        Map<String, String> drl = shipped();
        java.util.Set<String> user = new java.util.LinkedHashSet<>();
        if (!Files.isDirectory(extraFolder))
            throw new SpecException(extraFolder.toString(), null, "a folder of *.drl rule files");
        try (Stream<Path> files = Files.list(extraFolder)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".drl")).sorted().toList()) {
                drl.put(p.toString(), InputFiles.readUtf8(p, "a Drools rule file (*.drl)", MAX_RULE_FILE_BYTES));
                user.add(p.toString());
            }
        } catch (IOException e) {
            throw new SpecException(extraFolder.toString(), null, "a readable folder: " + e.getMessage());
        }
        return new RuleEngine(drl, user);
    }

    /** A rule file is read whole and compiled: at most 1 MB (the shipped rules are 4-60 KB a file). */
    static final long MAX_RULE_FILE_BYTES = 1L << 20;

    /** A rule base of exactly these files (tests). */
    static RuleEngine of(Map<String, String> drlByFile) { return new RuleEngine(new LinkedHashMap<>(drlByFile), java.util.Set.of()); }

    /** A rule base of exactly these files, each checked and run as a user's rules folder is (tests). */
    static RuleEngine ofUserFiles(Map<String, String> drlByFile) {
        return new RuleEngine(new LinkedHashMap<>(drlByFile), drlByFile.keySet());
    }

    static Map<String, String> shipped() {
        Map<String, String> drl = new LinkedHashMap<>();
        for (String name : Resources.list("rules", ".drl")) {
            try (InputStream in = Resources.open(name)) {
                drl.put(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        if (drl.isEmpty()) throw new IllegalStateException("no rules/*.drl on the classpath");
        return drl;
    }

    /**
     * Every rule and where it is declared: the first file (in drlByFile's order) with a line {@code rule "NAME"} (blanks
     * before it on the line, blanks or line breaks between {@code rule} and the name), and the line its name ends on.
     * Read by hand, one pass over each file: this runs at every start, and the regex it replaces ({@code
     * (?m)^\s*rule\s+"([^"]*)"}, RuleEngineDeclaredTest's oracle) tried a match at every character of the 107 KB of
     * shipped rules in code not yet compiled, a fifth of the rule base's start on its thread (JFR, bench/coldstart.sh).
     */
    static Map<String, Map.Entry<String, Integer>> declared(Map<String, String> drlByFile) {
        Map<String, Map.Entry<String, Integer>> declared = new java.util.HashMap<>();
        for (Map.Entry<String, String> e : drlByFile.entrySet()) {
            String text = e.getValue();
            int n = text.length(), at = 0, lines = 1;
            for (int p = 0; p < n; p = nextLineStart(text, p)) {
                if (!lineStart(text, p)) continue;
                // ^\s*rule\s+"([^"]*)" at p: no backtracking can change what it matches (rule and " are not blanks)
                int i = p;
                while (i < n && space(text.charAt(i))) i++;
                if (!text.startsWith("rule", i) || i + 4 >= n || !space(text.charAt(i + 4))) continue;
                int q = i + 4;
                while (q < n && space(text.charAt(q))) q++;
                if (q >= n || text.charAt(q) != '"') continue;
                int close = text.indexOf('"', q + 1);
                if (close < 0) continue;
                for (int k = at; k <= close; k++) if (text.charAt(k) == '\n') lines++;
                at = close + 1;
                declared.putIfAbsent(text.substring(q + 1, close), Map.entry(e.getKey(), lines));
                p = close;   // the next match starts after this one's end, as Matcher.find's does
            }
        }
        return declared;
    }

    /** Where regex ^ matches in MULTILINE mode: the start, or after a line terminator (\r\n as one). */
    private static boolean lineStart(String t, int p) {
        if (p == 0) return true;
        char b = t.charAt(p - 1);
        return b == '\n' || (b == '\r' && t.charAt(p) != '\n') || b == '\u0085' || b == '\u2028' || b == '\u2029';
    }

    /** The first position after {@code p} where a line may start (past the next line terminator), or the end. */
    private static int nextLineStart(String t, int p) {
        for (int i = p; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c == '\n' || c == '\u0085' || c == '\u2028' || c == '\u2029') return i + 1;
            if (c == '\r') return i + 1 < t.length() && t.charAt(i + 1) == '\n' ? i + 2 : i + 1;
        }
        return t.length();
    }

    /** Regex \s (Java's, without UNICODE_CHARACTER_CLASS): [ \t\n\x0B\f\r]. */
    private static boolean space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\u000B' || c == '\f' || c == '\r'; }

    /**
     * Every rule with its metadata; a rule without {@code @id}, {@code @title} or {@code @description} is an input
     * error naming its file and line.
     */
    private static List<RuleInfo> describe(KieBase kb, Map<String, String> drlByFile) {
        Map<String, Map.Entry<String, Integer>> declared = declared(drlByFile);
        List<RuleInfo> out = new ArrayList<>();
        for (KiePackage pkg : kb.getKiePackages()) {
            for (Rule r : pkg.getRules()) {
                Map.Entry<String, Integer> where = declared.get(r.getName());
                String file = where == null ? "?" : where.getKey();
                int line = where == null ? 0 : where.getValue();
                for (String key : List.of("id", "title", "description")) {
                    if (RuleInfo.metaOrNull(r, key) == null)
                        throw new SpecException(file, null, "every rule to carry @id, @title and @description (the id is what"
                                + " its diagnosis or remedy is reported under); rule \"" + r.getName() + "\" at line " + line
                                + " has no @" + key + "(...)");
                }
                out.add(new RuleInfo(r.getName(), RuleInfo.meta(r, "id"), RuleInfo.meta(r, "title"),
                        RuleInfo.meta(r, "description"), file, line, RuleInfo.metaOrNull(r, "confirm")));
            }
        }
        out.sort(Comparator.comparing(RuleInfo::file).thenComparingInt(RuleInfo::line).thenComparing(RuleInfo::name));
        return List.copyOf(out);
    }

    public List<RuleInfo> rules() { return rules.get(); }

    /** {@code s}'s value, worked out at the first call (by one thread; the others wait for it) and kept. */
    private static <T> java.util.function.Supplier<T> once(java.util.function.Supplier<T> s) {
        return new java.util.function.Supplier<>() {
            private T value;

            @Override
            public synchronized T get() {
                if (value == null) value = s.get();
                return value;
            }
        };
    }

    /**
     * What the rules conclude from these facts. The shipped rules alone run here; with a user's rules they run on a
     * thread of their own under {@link #limits()} ({@link GuardedSession}), and a rule that exceeds them, halts the
     * session, fails or exhausts the memory is bad input naming its file and the rule. The shipped rules run in a
     * session of this thread's, reset after each run (Drools' own reset: no fact, activation or counter left) and used
     * again: a new session per run built its node memories again every time (a batch of thousands of runs); a run that
     * fails drops its session. SessionReuseAdviceTest holds runs advised one after the other to what each says alone.
     */
    public Result run(Collection<?> facts) {
        if (!userFiles.isEmpty()) return new GuardedSession(this).run(facts);
        KieSession session = sessions.get();
        boolean clean = false;
        try {
            for (Object f : facts) session.insert(f);
            int fired = session.fireAllRules(MAX_FIRINGS);
            if (fired >= MAX_FIRINGS)
                throw new IllegalStateException("the rules did not settle after " + MAX_FIRINGS + " firings: two rules undo each other");
            Result r = conclusions(session, facts);
            clean = true;
            return r;
        } finally {
            if (clean) {
                ((org.drools.kiesession.session.StatefulKnowledgeSessionImpl) session).reset();
            } else {
                sessions.remove();
                session.dispose();
            }
        }
    }

    KieBase kieBase() { return kieBase; }

    java.util.Set<String> userFiles() { return userFiles; }

    java.util.concurrent.atomic.AtomicReference<String> abandoned() { return abandoned; }

    /** What a settled session holds: the diagnoses, the remedies and the other facts the rules inserted. */
    static Result conclusions(KieSession session, Collection<?> facts) {
        {
            List<Diagnosis> diagnoses = new ArrayList<>();
            for (Object o : session.getObjects(new ClassObjectFilter(Diagnosis.class))) diagnoses.add((Diagnosis) o);
            diagnoses.sort(RANKING);
            List<RemedyProposal> proposals = new ArrayList<>();
            for (Object o : session.getObjects(new ClassObjectFilter(RemedyProposal.class))) proposals.add((RemedyProposal) o);
            proposals.sort(Comparator.comparing(RemedyProposal::id).thenComparing(RemedyProposal::rule));
            java.util.Set<Object> given = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
            given.addAll(facts);
            List<Object> derived = new ArrayList<>();
            for (Object o : session.getObjects()) if (!given.contains(o) && !(o instanceof Diagnosis) && !(o instanceof RemedyProposal))
                derived.add(o);
            return new Result(List.copyOf(diagnoses), List.copyOf(proposals), List.copyOf(derived));
        }
    }

    /**
     * @param derived the facts the rules inserted that are neither diagnoses nor remedies (symptoms, faults,
     *                bottlenecks, a replaced Materiality), for tests and explanations
     */
    public record Result(List<Diagnosis> diagnoses, List<RemedyProposal> proposals, List<Object> derived) {}
}
