package dev.trainadvisor.pyliteral;

import java.util.Locale;

/** Python's tokenizer, as far as configs need it. One pass. */
final class Tokenizer {
    private final String s;
    private final int len;
    private final Tokens t;
    private int pos, line = 1, depth;

    Tokenizer(String src) {
        this.s = src.startsWith("\uFEFF") ? src.substring(1) : src;
        this.len = s.length();
        this.t = new Tokens(s);
    }

    Tokens run() {
        boolean lineStart = true;
        int indent = 0;
        int stmtStart = 0;
        while (pos < len) {
            char c = s.charAt(pos);
            if (lineStart) {
                int col = 0;
                while (pos < len && (s.charAt(pos) == ' ' || s.charAt(pos) == '\t' || s.charAt(pos) == '\f')) {
                    col++;
                    pos++;
                }
                if (pos >= len) break;
                c = s.charAt(pos);
                if (c == '\n' || c == '\r' || c == '#') {
                    lineStart = c == '#' ? skipComment() : true;
                    if (c != '#') newline();
                    continue;   // a blank or comment-only line
                }
                indent = col;
                lineStart = false;
                stmtStart = t.n;
            }
            if (c == '\n' || c == '\r') {
                newline();
                if (depth == 0) {
                    t.stmt(stmtStart, t.n, indent);
                    stmtStart = t.n;
                    lineStart = true;
                }
            } else if (c == ' ' || c == '\t' || c == '\f') {
                pos++;
            } else if (c == '#') {
                skipComment();
            } else if (c == '\\' && pos + 1 < len && (s.charAt(pos + 1) == '\n' || s.charAt(pos + 1) == '\r')) {
                pos++;
                newline();   // an explicit line continuation
            } else if (c == ';' && depth == 0) {
                pos++;
                t.stmt(stmtStart, t.n, indent);
                stmtStart = t.n;
            } else if (c == '"' || c == '\'') {
                string(pos, pos, "");
            } else if (Character.isDigit(c) || (c == '.' && pos + 1 < len && Character.isDigit(s.charAt(pos + 1)))) {
                number();
            } else if (c == '_' || Character.isLetter(c)) {
                name();
            } else {
                op(c);
            }
        }
        if (!lineStart) t.stmt(stmtStart, t.n, indent);
        matchBrackets();
        return t;
    }

    /** Skips to the end of the line; returns true (the next character starts a line) for the caller's flag. */
    private boolean skipComment() {
        while (pos < len && s.charAt(pos) != '\n' && s.charAt(pos) != '\r') pos++;
        return true;
    }

    private void newline() {
        if (s.charAt(pos) == '\r' && pos + 1 < len && s.charAt(pos + 1) == '\n') pos++;
        pos++;
        line++;
    }

    private void name() {
        int start = pos;
        while (pos < len && (s.charAt(pos) == '_' || Character.isLetterOrDigit(s.charAt(pos)))) pos++;
        String word = s.substring(start, pos);
        if (pos < len && (s.charAt(pos) == '"' || s.charAt(pos) == '\'') && word.length() <= 2
                && word.toLowerCase(Locale.ROOT).matches("[rbuf]{1,2}")) {
            string(start, pos, word.toLowerCase(Locale.ROOT));
            return;
        }
        t.add(Tokens.NAME, word, line, start, pos);
    }

    /** A string literal whose prefix starts at {@code start} and whose quote is at {@code q}. */
    private void string(int start, int q, String prefix) {
        int ln = line;
        char quote = s.charAt(q);
        boolean triple = q + 2 < len && s.charAt(q + 1) == quote && s.charAt(q + 2) == quote;
        boolean raw = prefix.indexOf('r') >= 0;
        pos = q + (triple ? 3 : 1);
        StringBuilder b = new StringBuilder();
        while (true) {
            if (pos >= len) {
                t.add(Tokens.ERR, "unterminated string", ln, start, pos);
                return;
            }
            char c = s.charAt(pos);
            if (c == quote && (!triple || (pos + 2 < len && s.charAt(pos + 1) == quote && s.charAt(pos + 2) == quote))) {
                pos += triple ? 3 : 1;
                break;
            }
            if (c == '\n' || c == '\r') {
                if (!triple) {
                    t.add(Tokens.ERR, "unterminated string", ln, start, pos);
                    return;   // the newline ends the line as usual
                }
                b.append('\n');
                newline();
                continue;
            }
            if (c == '\\' && pos + 1 < len) {
                char e = s.charAt(pos + 1);
                if (e == '\n' || e == '\r') {     // an escaped newline: continues the string
                    pos++;
                    if (raw) b.append('\\').append('\n');
                    newline();
                    continue;
                }
                pos += 2;
                if (raw) {
                    b.append('\\').append(e);
                    continue;
                }
                switch (e) {
                    case 'n' -> b.append('\n');
                    case 't' -> b.append('\t');
                    case 'r' -> b.append('\r');
                    case '0' -> b.append('\0');
                    case '\\', '\'', '"' -> b.append(e);
                    default -> b.append('\\').append(e);
                }
                continue;
            }
            b.append(c);
            pos++;
        }
        t.add(prefix.indexOf('f') >= 0 ? Tokens.FSTR : Tokens.STR, b.toString(), ln, start, pos);
    }

    private void number() {
        int start = pos;
        if (s.charAt(pos) == '0' && pos + 1 < len && "xXoObB".indexOf(s.charAt(pos + 1)) >= 0) {
            char r = Character.toLowerCase(s.charAt(pos + 1));
            pos += 2;
            int ds = pos;
            while (pos < len && (Character.isLetterOrDigit(s.charAt(pos)) || s.charAt(pos) == '_')) pos++;
            String digits = s.substring(ds, pos).replace("_", "");
            try {
                t.add(Tokens.NUM, Long.parseLong(digits, r == 'x' ? 16 : r == 'o' ? 8 : 2), line, start, pos);
            } catch (NumberFormatException e) {
                t.add(Tokens.ERR, "bad number '" + s.substring(start, Math.min(pos, start + 30)) + "'", line, start, pos);
            }
            return;
        }
        boolean isFloat = false;
        digits();
        if (pos < len && s.charAt(pos) == '.') {
            isFloat = true;
            pos++;
            digits();
        }
        if (pos < len && (s.charAt(pos) == 'e' || s.charAt(pos) == 'E')) {
            int save = pos;
            pos++;
            if (pos < len && (s.charAt(pos) == '+' || s.charAt(pos) == '-')) pos++;
            if (pos < len && Character.isDigit(s.charAt(pos))) {
                isFloat = true;
                digits();
            } else {
                pos = save;
            }
        }
        String text = s.substring(start, pos).replace("_", "");
        if (pos < len && (s.charAt(pos) == 'j' || s.charAt(pos) == 'J')) {
            pos++;
            t.add(Tokens.ERR, "complex number", line, start, pos);
            return;
        }
        try {
            if (isFloat) {
                double d = Double.parseDouble(text);
                if (Double.isInfinite(d)) t.add(Tokens.ERR, "float out of range", line, start, pos);
                else t.add(Tokens.NUM, d, line, start, pos);
            } else {
                t.add(Tokens.NUM, Long.parseLong(text), line, start, pos);
            }
        } catch (NumberFormatException e) {
            t.add(Tokens.ERR, "number out of range: " + (text.length() > 30 ? text.substring(0, 30) + "..." : text),
                    line, start, pos);
        }
    }

    private void digits() {
        while (pos < len && (Character.isDigit(s.charAt(pos)) || s.charAt(pos) == '_')) pos++;
    }

    private static final String[] OPS3 = {"**=", "//=", ">>=", "<<=", "..."};
    private static final String[] OPS2 = {"**", "//", "==", "!=", "<=", ">=", "->", ":=", "+=", "-=", "*=", "/=",
            "%=", "&=", "|=", "^=", "@=", ">>", "<<"};

    private void op(char c) {
        int start = pos;
        for (String o : OPS3) if (s.startsWith(o, pos)) { pos += 3; t.add(Tokens.OP, o, line, start, pos); return; }
        for (String o : OPS2) if (s.startsWith(o, pos)) { pos += 2; t.add(Tokens.OP, o, line, start, pos); return; }
        pos++;
        if (c == '(' || c == '[' || c == '{') depth++;
        else if ((c == ')' || c == ']' || c == '}') && depth > 0) depth--;
        if (Character.isHighSurrogate(c) && pos < len && Character.isLowSurrogate(s.charAt(pos))) pos++;
        t.add(Tokens.OP, s.substring(start, pos), line, start, pos);
    }

    /** Pairs each opening bracket with its closing one (any kind); unmatched ones get -1. */
    private void matchBrackets() {
        int[] m = new int[t.n];
        java.util.Arrays.fill(m, -1);
        int[] stack = new int[16];
        int sp = 0;
        for (int i = 0; i < t.n; i++) {
            if (t.opener(i)) {
                if (sp == stack.length) stack = java.util.Arrays.copyOf(stack, sp * 2);
                stack[sp++] = i;
            } else if (t.closer(i) && sp > 0) {
                int o = stack[--sp];
                m[o] = i;
                m[i] = o;
            }
        }
        t.match = m;
    }
}
