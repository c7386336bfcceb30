package dev.trainadvisor.spec;

/**
 * The implementation section of a run: the framework that runs the layout, at its version, and how the run came to
 * it. The layout (ZeRO 1 over 8) says what is sharded; the framework says which collectives, in which dtype, how
 * often and hidden behind what (knowledge-base/frameworks/).
 *
 * @param origin what named the framework: "training.framework", the log's format, the printed TFLOPS' convention, or
 *               "default" (no framework named: {@link Frameworks#DEFAULT})
 */
public record Implementation(Framework framework, String origin) {

    /** What a run takes when nothing names its framework. */
    public static Implementation byDefault() {
        return new Implementation(Frameworks.builtIn().generic(), DEFAULT_ORIGIN);
    }

    public static final String DEFAULT_ORIGIN = "default";
    public static final String GIVEN = "training.framework";

    /**
     * The origin of a framework the run file named without its version, where its profile has several: the run is at
     * the profile's default version, which nobody chose, and the reports say so as they do of a framework a log named.
     */
    public static final String GIVEN_AT_DEFAULT_VERSION = GIVEN + ", at its profile's default version";

    /**
     * The origin of a framework the run file named without its version beside a log of a format only some of its
     * versions run (NeMo 2.0's, not Megatron-Bridge's): the newest of those, which nobody chose either.
     */
    public static final String GIVEN_AT_LOGS_NEWEST = GIVEN + ", at the newest version its log's format runs under";

    /** The origin of a framework named by the format of the run's log: "the log's format (torchtitan)". */
    public static String byLogFormat(String format) { return "the log's format (" + format + ")"; }

    /** What an origin adds where the log's date chose the version ({@link Frameworks.Profile#versionOn}). */
    public static final String BY_DATE = ", at the version current on ";

    /** What an origin adds where the release the log states chose the version ({@link Frameworks.Profile#versionOfRelease}). */
    public static final String BY_RELEASE = ", at the version of release ";

    /** What an origin adds where {@code release}, stated by the log, chose the version: ", at the version of release 0.10.3, which the log states". */
    public static String byRelease(String release) { return BY_RELEASE + release + ", which the log states"; }

    /**
     * What an origin adds where the log's day chose the version: ", at the version current on 2025-06-16, the log's date
     * (the default, 2026-06, began 2026-06-09)", after "the log's format (torchtitan)" or "training.framework". Where
     * {@code ofTheLogs}, the version the date bounds is the newest of those the log's format runs under, not the
     * profile's default (a NeMo 2.0 log, whose profile's default is Megatron-Bridge): "(the newest its log's format runs
     * under, nemo-2.0, began 2025-08-09)".
     */
    public static String byDate(java.time.LocalDate printed, String defaultVersion, java.time.LocalDate defaultBegan,
                                boolean ofTheLogs) {
        return BY_DATE + printed + ", the log's date (" + (ofTheLogs ? "the newest its log's format runs under" : "the default")
                + ", " + defaultVersion + ", began " + defaultBegan + ")";
    }

    /**
     * What an origin adds where the log's format chose among the profile's versions and nothing narrowed it further
     * (an undated NeMo 2.0 log: nemo-2.0, not the profile's default, Megatron-Bridge, whose logs are Megatron-LM's).
     */
    public static final String AT_LOGS_NEWEST = ", at the newest version a log of its format runs under";

    /**
     * Whether the version was chosen by the log (its date, the release it states, or its format) rather than taken as
     * the default.
     */
    public static boolean versionByLog(String origin) {
        return origin != null && (origin.contains(BY_DATE) || origin.contains(BY_RELEASE) || origin.contains(AT_LOGS_NEWEST));
    }

    /** Whether the run file named the framework. */
    public boolean given() { return given(origin); }

    /** Whether {@code origin} is that of a framework the run file named (at its version, its default or its log's day's). */
    public static boolean given(String origin) {
        return GIVEN.equals(origin) || GIVEN_AT_DEFAULT_VERSION.equals(origin) || GIVEN_AT_LOGS_NEWEST.equals(origin)
                || origin != null && (origin.startsWith(GIVEN + BY_DATE) || origin.startsWith(GIVEN + BY_RELEASE));
    }

    /** Whether nothing named it and the default was taken. */
    public boolean defaulted() { return DEFAULT_ORIGIN.equals(origin); }

    /** As the record's generated equals and hashCode, written out: why in {@link dev.trainadvisor.spec}. */
    @Override
    public boolean equals(Object o) {
        return this == o || o instanceof Implementation i && java.util.Objects.equals(framework, i.framework)
                && java.util.Objects.equals(origin, i.origin);
    }

    @Override
    public int hashCode() {
        int h = java.util.Objects.hashCode(framework);
        return 31 * h + java.util.Objects.hashCode(origin);
    }
}
