package dev.trainadvisor.ingest;

import dev.trainadvisor.input.SpecException;

import java.nio.file.Path;
import java.util.List;

/**
 * Every log format train-advisor reads, and detection by content (docs/logs.md). The order of
 * {@link #all()} breaks ties of confidence: training frameworks first, then the two cluster probes.
 *
 * <p>Entry points: {@link #read(Path)} for a file the user names (a regular file, streamed line by line in bounded
 * memory whatever its size; every failure a SpecException naming it), {@link #detectAndParse(String, String)} for
 * text held already (tests), {@link #detectAndParse(LogSource)} for either. nccl-tests output alone:
 * {@link NcclTests#read(Path)}.
 */
public final class LogFormats {
    /** Below this confidence a log is not recognized. */
    public static final double MIN_CONFIDENCE = 0.5;

    private LogFormats() {}

    /**
     * internevo, megatron, megatron-deepspeed, deepspeed, torchtitan, nanotron, nemo, composer, hf-trainer, lightning,
     * nccl-tests, nvidia-smi-topo.
     */
    public static List<LogParser> all() {
        return List.of(new InternEvoLog(), new MegatronLog(), new MegatronDeepSpeedLog(), new DeepSpeedLog(),
                new TorchtitanLog(), new NanotronLog(), new NemoLog(), new ComposerLog(), new HfTrainerLog(), new LightningLog(), new NcclTestsLog(),
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

    /**
     * Reads a log file: detects its format from its head and tail ({@link LogSource#sample()}) and parses it in one
     * streaming pass, in memory bounded whatever its size. The entry point for callers that name a file.
     *
     * @throws SpecException naming the file when it is not a regular file, cannot be read, is larger than
     *                       {@link LogSource#MAX_BYTES}, or no parser reaches {@link #MIN_CONFIDENCE}
     */
    public static ParsedLog read(Path file) {
        return detectAndParse(LogSource.of(file));
    }

    /**
     * Reads {@code text} with the parser most confident it is its format (ties: the earlier in {@link #all()}).
     *
     * @throws SpecException naming {@code fileName} when no parser reaches {@link #MIN_CONFIDENCE}
     */
    public static ParsedLog detectAndParse(String text, String fileName) {
        return detectAndParse(LogSource.of(text, fileName));
    }

    /** Detects the format of {@code log} and parses it (see {@link #read(Path)}). */
    public static ParsedLog detectAndParse(LogSource log) {
        return detect(log).parse(log);
    }

    /**
     * The parser most confident that {@code log} is its format, judged on {@link LogSource#sample()} (ties: the earlier
     * in {@link #all()}).
     *
     * @throws SpecException naming the log when no parser reaches {@link #MIN_CONFIDENCE}
     */
    public static LogParser detect(LogSource log) {
        String sample = log.sample();
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
            throw new SpecException(log.name(), null, "a log of a known format (" + String.join(", ", formats())
                    + "); none recognized" + (sample.indexOf('\uFFFD') >= 0 ? " (and the file is not valid UTF-8 text)" : ""));
        return best;
    }
}
