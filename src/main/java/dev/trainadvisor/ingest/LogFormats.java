package dev.trainadvisor.ingest;

import dev.trainadvisor.input.SpecException;

import java.util.List;

/**
 * Every log format train-advisor reads, and detection by content (DESIGN.md section 8; log-formats.md). The order of
 * {@link #all()} breaks ties of confidence: training frameworks first, then the two cluster probes.
 */
public final class LogFormats {
    /** Below this confidence a log is not recognized. */
    public static final double MIN_CONFIDENCE = 0.5;

    private LogFormats() {}

    /**
     * internevo, megatron, megatron-deepspeed, deepspeed, torchtitan, nanotron, composer, hf-trainer, nccl-tests,
     * nvidia-smi-topo.
     */
    public static List<LogParser> all() {
        return List.of(new InternEvoLog(), new MegatronLog(), new MegatronDeepSpeedLog(), new DeepSpeedLog(),
                new TorchtitanLog(), new NanotronLog(), new ComposerLog(), new HfTrainerLog(), new NcclTestsLog(),
                new TopologyLog());
    }

    /** The format keys of {@link #all()}, in order. */
    public static List<String> formats() {
        return all().stream().map(LogParser::format).toList();
    }

    /** The parser of a format key, or null. */
    public static LogParser byFormat(String format) {
        for (LogParser p : all()) if (p.format().equals(format)) return p;
        return null;
    }

    /** Detection looks at the head and the tail of a log, not all of it: formats show in their first and last lines. */
    static final int SAMPLE_HEAD = 1 << 20, SAMPLE_TAIL = 1 << 18;

    /** The first MiB and the last 256 KiB of {@code text}, cut at line ends (all of it when shorter). */
    static String sample(String text) {
        if (text.length() <= SAMPLE_HEAD + SAMPLE_TAIL) return text;
        int headEnd = text.lastIndexOf('\n', SAMPLE_HEAD);
        if (headEnd < 0) headEnd = SAMPLE_HEAD;
        int tailStart = text.indexOf('\n', text.length() - SAMPLE_TAIL);
        if (tailStart < 0) tailStart = text.length() - SAMPLE_TAIL;
        return text.substring(0, headEnd) + "\n" + text.substring(tailStart + 1);
    }

    /**
     * Reads {@code text} with the parser most confident it is its format (ties: the earlier in {@link #all()}).
     *
     * @throws SpecException naming {@code fileName} when no parser reaches {@link #MIN_CONFIDENCE}
     */
    public static ParsedLog detectAndParse(String text, String fileName) {
        String t = text == null ? "" : text;
        String sample = sample(t);
        LogParser best = null;
        double bestConfidence = -1;
        for (LogParser p : all()) {                     // parsers never throw (GuardedLogParser)
            double c = p.confidence(sample);
            if (c > bestConfidence) {
                best = p;
                bestConfidence = c;
            }
        }
        if (best == null || !(bestConfidence >= MIN_CONFIDENCE))
            throw new SpecException(fileName, null, "a log of a known format (" + String.join(", ", formats())
                    + "); none recognized");
        return best.parse(t);
    }
}
