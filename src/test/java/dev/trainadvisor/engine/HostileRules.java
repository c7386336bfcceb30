package dev.trainadvisor.engine;

/** Rule files a hostile or careless team might write (issue 23), shared by the engine's, the command line's and the fuzz tests. */
public final class HostileRules {
    private HostileRules() {}

    public static final String HEAD = "package team.rules;\nimport dev.trainadvisor.facts.*;\n";

    /** One rule matching the Materiality fact, {@code then} its consequence: the consequence is line 7. */
    public static String rule(String name, String then) {
        return HEAD + "rule \"" + name + "\" @id(\"" + name + "\") @title(\"t\") @description(\"d\")\n"
                + "when\n    $m : Materiality()\nthen\n    " + then + "\nend\n";
    }

    /** A counter modified by its own rule until it reaches {@code until}: until + 1 firings; "tick" is line 8. */
    public static String cycle(int until) {
        return HEAD + """
                declare Tick
                    n : int
                end
                rule "start" @id("start") @title("t") @description("d")
                when Materiality() then insert(new Tick(0)); end
                rule "tick" @id("tick") @title("t") @description("d")
                when $t : Tick( n < %d ) then modify($t) { setN($t.getN() + 1) }; end
                """.formatted(until);
    }

    /** A consequence that loops in Java, deaf to halt and interrupt. */
    public static final String SPIN = "long n = 0; while (n >= 0) { n = (n + 1) % 1000; }";
}
