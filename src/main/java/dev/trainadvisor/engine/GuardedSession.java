package dev.trainadvisor.engine;

import dev.trainadvisor.input.SpecException;
import org.kie.api.event.rule.AfterMatchFiredEvent;
import org.kie.api.event.rule.BeforeMatchFiredEvent;
import org.kie.api.event.rule.DefaultAgendaEventListener;
import org.kie.api.runtime.KieSession;

import java.util.Collection;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One run of a rule base that holds a user's rules, under its {@link RuleEngine.Limits}: the facts are inserted and
 * the rules fired on a daemon thread of their own, which the calling thread waits for until the time limit; a listener
 * counts the firings and remembers the rule firing and the rule that fired last. What can go wrong is bad input (exit
 * 2) naming the user's rule file and the rule:
 *
 * <ul>
 *   <li>the time limit passes: the session is halted and the thread interrupted; a rule that does not stop (a Java loop
 *       ignores both) has its daemon thread stopped by force where the JVM still allows it (Java 17 to 19), else left
 *       running (a daemon cannot keep the process alive), and this rule base is not run again (every later run is
 *       refused at once);</li>
 *   <li>the firing limit is reached: two rules undo each other;</li>
 *   <li>a rule halts the session before the rules settle ({@code drools.halt()}, which would silently cut the shipped
 *       rules' conclusions short): found by firing again after the session returns;</li>
 *   <li>a rule throws, or exhausts the heap or the stack.</li>
 * </ul>
 *
 * A failure in a shipped rule that no user rule had a part in stays what it was (a bug in train-advisor).
 */
final class GuardedSession {
    /** How long a halted session has to stop before its thread is left running. */
    static final long GRACE_MILLIS = 250;

    private final RuleEngine engine;

    GuardedSession(RuleEngine engine) { this.engine = engine; }

    /** Counts firings, halts the session at the firing limit, and remembers which rule fires. */
    static final class Watch extends DefaultAgendaEventListener {
        volatile String firing;
        volatile String last;
        volatile int fired;
        volatile boolean timedOut;

        @Override
        public void beforeMatchFired(BeforeMatchFiredEvent event) { firing = event.getMatch().getRule().getName(); }

        @Override
        public void afterMatchFired(AfterMatchFiredEvent event) {
            last = event.getMatch().getRule().getName();
            firing = null;
            fired++;
        }
    }

    /** Thrown on the rules' thread when they do not settle: reported by the calling thread. */
    private static final class NotSettled extends RuntimeException {
        final String why;

        NotSettled(String why) {
            super(why, null, false, false);
            this.why = why;
        }
    }

    RuleEngine.Result run(Collection<?> facts) {
        RuleEngine.Limits limits = engine.limits();
        String stuck = engine.abandoned().get();
        if (stuck != null)
            throw new SpecException(String.join(", ", engine.userFiles().stream().sorted().toList()), null,
                    "rules that stop when halted; " + stuck + ", so these rules are not run again");
        KieSession session = engine.kieBase().newKieSession();
        Watch watch = new Watch();
        session.addEventListener(watch);
        FutureTask<RuleEngine.Result> task = new FutureTask<>(() -> {
            for (Object f : facts) session.insert(f);
            int fired = session.fireAllRules(limits.firings());
            if (watch.timedOut) throw new NotSettled("timed out");
            if (fired >= limits.firings()) throw new NotSettled("firings");
            // a session that returns with rules still to fire was halted by a rule
            String lastBefore = watch.last;
            if (session.fireAllRules(1) > 0 && !watch.timedOut) throw new NotSettled("halted:" + lastBefore);
            if (watch.timedOut) throw new NotSettled("timed out");
            return RuleEngine.conclusions(session, facts);
        });
        Thread thread = new Thread(task, "train-advisor rules");
        thread.setDaemon(true);
        thread.start();
        try {
            RuleEngine.Result r = task.get(limits.timeMillis(), TimeUnit.MILLISECONDS);
            session.dispose();
            return r;
        } catch (TimeoutException e) {
            watch.timedOut = true;
            session.halt();
            thread.interrupt();
            try {
                task.get(GRACE_MILLIS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException | ExecutionException | RuntimeException stillRunning) {
                // reported below
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
            String rule = watch.firing != null ? watch.firing : watch.last;
            boolean stopped = task.isDone();
            String seconds = seconds(limits.timeMillis());
            String what = (watch.firing != null ? rule(watch.firing) + " was still running"
                    : "the rules were still matching facts" + (watch.last == null ? "" : " (the last to fire: " + rule(watch.last) + ")"))
                    + " after " + seconds + " s, " + watch.fired + " firings";
            boolean forced = false;
            if (!stopped) {
                engine.abandoned().compareAndSet(null, "a run's " + what.replace(" was still running", " ran on")
                        .replace("the rules were still matching", "rules went on matching") + " and did not stop when halted");
                forced = stop(thread);
            } else {
                session.dispose();
            }
            throw new SpecException(fileOf(rule), null, "rules that settle within the time limit (" + seconds
                    + " s a run; --rule-time-limit sets it); " + what + (stopped ? "" : " and did not stop when halted: "
                    + (forced ? "its thread was stopped by force, and these rules are not run again" : "it is left running "
                    + "until train-advisor exits")));
        } catch (ExecutionException e) {
            session.dispose();
            throw failed(e.getCause(), watch, limits);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            watch.timedOut = true;
            session.halt();
            throw new IllegalStateException("interrupted while the rules ran", e);
        }
    }

    /**
     * Stops a thread that ignored halt and interrupt: Thread.stop, which Java 17 to 19 still honour (a loop with a
     * safepoint poll ends at once; the shared rule base is not touched again, since these rules are not run again). Where
     * the JVM refuses (Java 20 and later) the daemon thread is left running. Whether it was asked to stop.
     */
    @SuppressWarnings({"removal", "deprecation"})
    static boolean stop(Thread thread) {
        try {
            thread.stop();
            return true;
        } catch (UnsupportedOperationException | SecurityException e) {
            return false;
        }
    }

    private RuntimeException failed(Throwable cause, Watch watch, RuleEngine.Limits limits) {
        if (cause instanceof SpecException se) return se;
        if (cause instanceof NotSettled ns) {
            if (ns.why.equals("firings"))
                return new SpecException(fileOf(watch.last), null, "rules that settle within the firing limit ("
                        + limits.firings() + " firings a run; --rule-firing-limit sets it): they are still firing, so two rules"
                        + " undo each other; the last to fire: " + rule(watch.last));
            if (ns.why.startsWith("halted:")) {
                String halter = ns.why.substring("halted:".length());
                return new SpecException(fileOf(halter), null, "rules that do not stop the session; it was halted before"
                        + " the rules settled" + (halter.equals("null") ? "" : ", after " + rule(halter) + " fired")
                        + ", which would cut the shipped rules' conclusions short");
            }
            return new SpecException(fileOf(watch.last), null, "rules that settle within the time limit ("
                    + seconds(limits.timeMillis()) + " s a run; --rule-time-limit sets it)");
        }
        String rule = watch.firing != null ? watch.firing : watch.last;
        boolean inUserRule = rule != null && isUsers(rule);
        String where = watch.firing != null ? rule(watch.firing) : "matching facts"
                + (watch.last == null ? "" : " after " + rule(watch.last) + " fired");
        if (cause instanceof OutOfMemoryError)
            return new SpecException(fileOf(rule), null, "rules that fit in this Java heap; " + where + " ran out of memory ("
                    + cause.getMessage() + ")");
        if (cause instanceof StackOverflowError)
            return new SpecException(fileOf(rule), null, "rules that do not recurse without end; " + where + " ran out of stack");
        if (cause instanceof Error err) throw err;
        if (watch.firing != null && !inUserRule && cause instanceof RuntimeException re) return re;   // a shipped rule's bug
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        String message = root.getMessage() == null ? root.getClass().getSimpleName()
                : root.getClass().getSimpleName() + ": " + root.getMessage();
        return new SpecException(fileOf(rule), null, "rules that run without failing; " + where + " failed: "
                + dev.trainadvisor.input.Excerpt.of(message));
    }

    private boolean isUsers(String ruleName) {
        return info(ruleName) != null && engine.userFiles().contains(info(ruleName).file());
    }

    /** A rule as a message names it: "rule "X" (file, line N)". */
    private String rule(String name) {
        if (name == null) return "none";
        RuleInfo i = info(name);
        return "rule \"" + name + "\"" + (i == null ? "" : " (" + i.file() + ", line " + i.line() + ")");
    }

    /** The rule's file when it is the user's, else every user rule file. */
    private String fileOf(String ruleName) {
        RuleInfo i = ruleName == null ? null : info(ruleName);
        if (i != null && engine.userFiles().contains(i.file())) return i.file();
        return String.join(", ", engine.userFiles().stream().sorted().toList());
    }

    /** A rule's metadata by name, the user's first where a shipped rule has the same name. */
    private RuleInfo info(String name) {
        RuleInfo shipped = null;
        for (RuleInfo i : engine.rules()) {
            if (!i.name().equals(name)) continue;
            if (engine.userFiles().contains(i.file())) return i;
            shipped = i;
        }
        return shipped;
    }

    private static String seconds(long millis) {
        return millis % 1000 == 0 ? Long.toString(millis / 1000) : dev.trainadvisor.facts.Fmt.num(millis / 1000.0);
    }
}
