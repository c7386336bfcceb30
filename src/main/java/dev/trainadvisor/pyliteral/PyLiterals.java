package dev.trainadvisor.pyliteral;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Python literals and constant expressions, read as data from Python source without executing it: the top-level
 * {@code name = expression} statements of a module (an InternEvo {@code configs/*.py}), each evaluated in order.
 *
 * <p>The source is split into logical lines the way Python's tokenizer does (comments, strings with every prefix and
 * triple quotes, line continuations inside brackets and after a backslash, {@code ;}); a small recursive-descent
 * evaluator knows only: int, float, string (adjacent literals joined), True, False, None; names of UPPER_CASE
 * constants assigned earlier in the file; {@code + - * / // **} (Python precedence: {@code -2**2 == -4}, {@code **}
 * right-associative, {@code /} always a float, {@code //} floor division) and parentheses; {@code dict(key=value,
 * ...)}, {@code {key: value, ...}}, lists and tuples. Anything else (calls, subscripts, attributes, f-strings,
 * comprehensions, imports, if-blocks, augmented assignments) is not evaluated: the statement or, inside a dict, just
 * that entry is skipped and named in the warnings. Integer arithmetic that leaves the 64-bit range is refused rather
 * than approximated.
 *
 * <p>Values are Long, Double, Boolean, String, {@link PyNone#NONE}, Map (dicts, keys as strings) and List (lists and
 * tuples), unmodifiable; a dict entry that could not be evaluated is {@link Skipped#SKIPPED}. One pass over the source
 * plus one over its tokens (linear time); nesting deeper than {@value #MAX_DEPTH} brackets or unary operators is
 * refused rather than recursed into.
 */
public final class PyLiterals {
    /** Brackets and unary operators nested deeper than this are refused, not recursed into. */
    public static final int MAX_DEPTH = 200;

    private PyLiterals() {}

    /**
     * The module's top-level names after "running" it: each {@code name = expression} statement evaluated in order.
     * A statement that cannot be evaluated is skipped with a warning, and its name is forgotten.
     */
    public static Map<String, Object> globals(String src, Warnings w) {
        Map<String, Object> g = new LinkedHashMap<>();
        if (src == null) {
            w.add("no config text");
            return g;
        }
        Tokens t = new Tokenizer(src).run();
        Evaluator ev = new Evaluator(t, g, w);
        // the first statement's indentation is the module level (Python would refuse a wholly indented paste)
        int base = t.stmtCount > 0 ? t.stmtIndent[0] : 0;
        for (int s = 0; s < t.stmtCount; s++) {
            if (t.stmtIndent[s] > base) continue;    // the body of an if/def/for/with, whose header was reported
            ev.statement(t.stmtStart[s], t.stmtEnd[s]);
        }
        return g;
    }

    /** A value as Python would print it, for messages: strings quoted and cut at 40 characters. */
    public static String show(Object v) {
        if (v instanceof String s) return '"' + (s.length() > 40 ? s.substring(0, 40) + "..." : s) + '"';
        if (v instanceof Boolean b) return b ? "True" : "False";
        if (v instanceof Map) return "a dict";
        if (v instanceof List) return "a list";
        return String.valueOf(v);
    }
}
