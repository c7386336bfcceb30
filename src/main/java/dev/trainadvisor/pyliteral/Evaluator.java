package dev.trainadvisor.pyliteral;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static dev.trainadvisor.pyliteral.Tokens.ERR;
import static dev.trainadvisor.pyliteral.Tokens.FSTR;
import static dev.trainadvisor.pyliteral.Tokens.NAME;
import static dev.trainadvisor.pyliteral.Tokens.NUM;
import static dev.trainadvisor.pyliteral.Tokens.STR;

/** Evaluates statements and expressions over a token range; recursive descent, depth-bounded. */
final class Evaluator {
    private final Tokens t;
    private final Map<String, Object> g;
    private final Warnings w;
    private final Deque<String> path = new ArrayDeque<>();
    private int pos, end, depth;

    Evaluator(Tokens t, Map<String, Object> g, Warnings w) {
        this.t = t;
        this.g = g;
        this.w = w;
    }

    void statement(int start, int stop) {
        pos = start;
        end = stop;
        depth = 0;
        path.clear();
        int ln = t.line[start];
        if (stop - start == 1 && (t.kind[start] == STR || t.kind[start] == FSTR)) return;   // a docstring
        if (!(stop - start >= 3 && t.kind[start] == NAME && t.isOp(start + 1, "=") && !keyword(start))) {
            w.add("line " + ln + ": skipped '" + t.text(start, stop) + "' (not a name = value assignment)");
            return;
        }
        String name = (String) t.val[start];
        if (t.kind[start + 2] == NAME && t.isOp(start + 3, "=")) {
            w.add("line " + ln + ": skipped '" + t.text(start, stop) + "' (chained assignment)");
            g.remove(name);
            return;
        }
        pos = start + 2;
        path.addLast(name);
        try {
            Object v = expr();
            if (pos < end) throw new Bad("unexpected '" + t.text(pos, pos + 1) + "'", pos);
            g.put(name, v);
        } catch (Bad b) {
            g.remove(name);
            w.add("line " + lineOf(b.at) + ": " + name + " not evaluated: " + b.getMessage());
        }
    }

    private boolean keyword(int i) {
        String v = (String) t.val[i];
        return switch (v) {
            case "True", "False", "None", "if", "else", "for", "while", "def", "class", "import", "from",
                 "return", "lambda", "with", "try", "except", "finally", "global", "del", "pass", "raise",
                 "assert", "yield", "in", "is", "not", "and", "or", "async", "await", "elif", "break",
                 "continue", "nonlocal" -> true;
            default -> false;
        };
    }

    private int lineOf(int at) { return t.line[Math.max(0, Math.min(at, t.n - 1))]; }

    private Bad bad(String why) { return new Bad(why, pos); }

    private void enter() {
        if (++depth > PyLiterals.MAX_DEPTH) throw bad("nested more than " + PyLiterals.MAX_DEPTH + " deep");
    }

    private boolean at(String op) { return pos < end && t.isOp(pos, op); }

    // expr := term (('+' | '-') term)*
    Object expr() {
        Object v = term();
        while (at("+") || at("-")) {
            boolean plus = at("+");
            int opAt = pos++;
            Object r = term();
            v = plus ? add(v, r, opAt) : arith('-', v, r, opAt);
        }
        return v;
    }

    // term := unary (('*' | '/' | '//') unary)*
    private Object term() {
        Object v = unary();
        while (at("*") || at("/") || at("//")) {
            char op = at("*") ? '*' : at("/") ? '/' : 'f';
            int opAt = pos++;
            v = arith(op, v, unary(), opAt);
        }
        return v;
    }

    // unary := ('+' | '-') unary | power
    private Object unary() {
        if (at("-") || at("+")) {
            boolean minus = at("-");
            int opAt = pos++;
            enter();
            Object v = unary();
            depth--;
            if (!(v instanceof Long) && !(v instanceof Double)) throw new Bad("unary minus of " + PyLiterals.show(v), opAt);
            if (!minus) return v;
            if (v instanceof Long l) {
                if (l == Long.MIN_VALUE) throw new Bad("integer overflow", opAt);
                return -l;
            }
            return -(Double) v;
        }
        return power();
    }

    // power := atom ('**' unary)?     (right-associative; binds tighter than a unary minus on its left)
    private Object power() {
        Object base = atom();
        if (at("**")) {
            int opAt = pos++;
            enter();
            Object exp = unary();
            depth--;
            return arith('^', base, exp, opAt);
        }
        return base;
    }

    /** Python {@code +}: numbers, or two strings, or two lists/tuples. */
    private Object add(Object a, Object b, int at) {
        if (a instanceof String x && b instanceof String y) return x + y;
        if (a instanceof List<?> x && b instanceof List<?> y) {
            List<Object> l = new ArrayList<>(x);
            l.addAll(y);
            return Collections.unmodifiableList(l);
        }
        return arith('+', a, b, at);
    }

    /**
     * Numeric {@code + - * / // **} ({@code f} is floor division, {@code ^} power) with Python's rules: int op int
     * stays an int except for {@code /} and a negative power; any float makes a float. Refused: non-numbers
     * (Python's True + 1 included), division by zero, integers beyond 64 bits, non-finite or complex results.
     */
    private Object arith(char op, Object a, Object b, int at) {
        if (!(a instanceof Long || a instanceof Double) || !(b instanceof Long || b instanceof Double))
            throw new Bad("'" + (op == 'f' ? "//" : op == '^' ? "**" : String.valueOf(op)) + "' of " + PyLiterals.show(a)
                    + " and " + PyLiterals.show(b), at);
        try {
            if (a instanceof Long x && b instanceof Long y) {
                switch (op) {
                    case '+': return Math.addExact(x, y);
                    case '-': return Math.subtractExact(x, y);
                    case '*': return Math.multiplyExact(x, y);
                    case 'f':
                        if (y == 0) throw new Bad("integer division by zero", at);
                        if (x == Long.MIN_VALUE && y == -1) throw new Bad("integer overflow", at);
                        return Math.floorDiv(x, y);
                    case '^':
                        if (y >= 0) return pow(x, y, at);
                        break;   // a negative power is a float
                    default:
                        break;
                }
            }
        } catch (ArithmeticException e) {
            throw new Bad("integer overflow (beyond 64 bits)", at);
        }
        double x = ((Number) a).doubleValue(), y = ((Number) b).doubleValue();
        double r;
        switch (op) {
            case '+' -> r = x + y;
            case '-' -> r = x - y;
            case '*' -> r = x * y;
            case '/' -> {
                if (y == 0) throw new Bad("division by zero", at);
                r = x / y;
            }
            case 'f' -> {
                if (y == 0) throw new Bad("division by zero", at);
                r = floorDiv(x, y);
            }
            default -> {
                if (x == 0 && y < 0) throw new Bad("0 to a negative power", at);
                if (x < 0 && y != Math.rint(y)) throw new Bad("complex result", at);
                r = Math.pow(x, y);
            }
        }
        if (!Double.isFinite(r)) throw new Bad("float overflow", at);
        return r;
    }

    /**
     * Python's float floor division (CPython floatobject.c, _float_div_mod): the floor of the exact quotient,
     * which is not floor(x / y) after rounding: 2 // 0.001 is 1999.0, because 0.001 is a little above 1/1000.
     */
    static double floorDiv(double x, double y) {
        double mod = x % y;   // C fmod
        double div = (x - mod) / y;
        if (mod != 0 && ((y < 0) != (mod < 0))) div -= 1.0;
        if (div == 0) return Math.copySign(0.0, x / y);
        double f = Math.floor(div);
        return div - f > 0.5 ? f + 1.0 : f;
    }

    /** x**y for y >= 0, exactly, by squaring (O(log y)); overflow throws ArithmeticException. */
    private static long pow(long x, long y, int at) {
        if (x == 0) return y == 0 ? 1 : 0;
        if (x == 1) return 1;
        if (x == -1) return (y & 1) == 0 ? 1 : -1;
        if (y >= 64) throw new ArithmeticException();
        long r = 1, b = x;
        long e = y;
        while (true) {
            if ((e & 1) != 0) r = Math.multiplyExact(r, b);
            e >>= 1;
            if (e == 0) return r;
            b = Math.multiplyExact(b, b);
        }
    }

    private Object atom() {
        if (pos >= end) throw bad("expression ends early");
        int i = pos;
        switch (t.kind[i]) {
            case NUM -> {
                pos++;
                return postfix(t.val[i]);
            }
            case STR -> {
                StringBuilder b = new StringBuilder((String) t.val[i]);
                pos++;
                while (pos < end && (t.kind[pos] == STR || t.kind[pos] == FSTR)) {
                    if (t.kind[pos] == FSTR) throw bad("f-string not evaluated");
                    b.append((String) t.val[pos++]);
                }
                return postfix(b.toString());
            }
            case FSTR -> throw bad("f-string not evaluated");
            case ERR -> throw bad((String) t.val[i]);
            case NAME -> {
                String n = (String) t.val[i];
                pos++;
                switch (n) {
                    case "True": return postfix(Boolean.TRUE);
                    case "False": return postfix(Boolean.FALSE);
                    case "None": return postfix(PyNone.NONE);
                    case "dict":
                        if (at("(")) return postfix(dictCall());
                        break;
                    default:
                        break;
                }
                if (!isConstantName(n)) {
                    if (at("(")) throw new Bad("call " + n + "(...) not evaluated", i);
                    if (at("[")) throw new Bad("subscript " + n + "[...] not evaluated", i);
                    if (at(".")) throw new Bad("attribute access " + n + ".x not evaluated", i);
                    throw new Bad("name '" + n + "' is not an upper-case constant (only those are evaluated)", i);
                }
                if (!g.containsKey(n)) throw new Bad("constant '" + n + "' is not defined before this line", i);
                return postfix(g.get(n));
            }
            default -> {
                if (at("(")) return postfix(parens());
                if (at("[")) return postfix(list());
                if (at("{")) return postfix(braceDict());
                throw bad("unexpected '" + t.text(i, i + 1) + "'");
            }
        }
    }

    /** Calls, subscripts and attributes of a value are not evaluated. */
    private Object postfix(Object v) {
        if (at("(")) throw bad("call not evaluated");
        if (at("[")) throw bad("subscript not evaluated");
        if (at(".")) throw bad("attribute access not evaluated");
        return v;
    }

    static boolean isConstantName(String n) {
        boolean letter = false;
        for (int k = 0; k < n.length(); k++) {
            char c = n.charAt(k);
            if (c >= 'A' && c <= 'Z') letter = true;
            else if (!(c == '_' || (c >= '0' && c <= '9'))) return false;
        }
        return letter;
    }

    /** The index of the bracket closing the one at {@code pos}, inside this statement. */
    private int closing() {
        int c = t.match[pos];
        if (c < 0 || c >= end) throw bad("'" + t.val[pos] + "' is never closed");
        return c;
    }

    // '(' ')' | '(' expr ')' | '(' expr ',' [expr (',' expr)* [',']] ')'
    private Object parens() {
        int close = closing();
        if (!t.isOp(close, ")")) throw bad("'(' closed by '" + t.val[close] + "'");
        pos++;
        enter();
        if (pos == close) {
            pos++;
            depth--;
            return List.of();
        }
        Object first = expr();
        if (pos == close) {
            pos++;
            depth--;
            return first;
        }
        List<Object> items = new ArrayList<>();
        items.add(first);
        items(items, close);
        depth--;
        return Collections.unmodifiableList(items);
    }

    private Object list() {
        int close = closing();
        if (!t.isOp(close, "]")) throw bad("'[' closed by '" + t.val[close] + "'");
        pos++;
        enter();
        List<Object> items = new ArrayList<>();
        if (pos < close) {
            items.add(expr());
            items(items, close);
        } else {
            pos++;
        }
        depth--;
        return Collections.unmodifiableList(items);
    }

    /** After a first item: (',' expr)* [','] up to and past {@code close}. */
    private void items(List<Object> items, int close) {
        while (true) {
            if (pos == close) {
                pos++;
                return;
            }
            if (!at(",")) throw bad("expected ',' or '" + t.val[close] + "', got '" + t.text(pos, pos + 1) + "'");
            pos++;
            if (pos == close) continue;
            items.add(expr());
        }
    }

    // dict '(' [NAME '=' expr (',' NAME '=' expr)* [',']] ')'
    private Map<String, Object> dictCall() {
        int close = closing();
        if (!t.isOp(close, ")")) throw bad("'(' closed by '" + t.val[close] + "'");
        return entries(close, "=", () -> {
            if (t.kind[pos] != NAME || !t.isOp(pos + 1, "=") || keyword(pos))
                throw bad("expected key=value, got '" + t.text(pos, pos + 1) + "'");
            return (String) t.val[pos++];
        });
    }

    // '{' [expr ':' expr (',' expr ':' expr)* [',']] '}'
    private Map<String, Object> braceDict() {
        int close = closing();
        if (!t.isOp(close, "}")) throw bad("'{' closed by '" + t.val[close] + "'");
        return entries(close, ":", () -> {
            int at = pos;
            Object k = expr();
            if (!(k instanceof String) && !(k instanceof Long) && !(k instanceof Boolean))
                throw new Bad("dict key " + PyLiterals.show(k) + " not supported", at);
            return String.valueOf(k instanceof Boolean b ? (b ? "True" : "False") : k);
        });
    }

    /**
     * The entries of a dict whose opening bracket is at {@code pos} and closing one at {@code close}: each is a
     * key read by {@code key}, then {@code separator}, then a value. An entry that fails is reported, kept as
     * {@link Skipped#SKIPPED} when its key was read, and the rest of the dict is still read.
     */
    private Map<String, Object> entries(int close, String separator, Supplier<String> key) {
        pos++;
        enter();
        Map<String, Object> m = new LinkedHashMap<>();
        while (pos < close) {
            int entry = pos, level = path.size(), savedDepth = depth;
            String k = null;
            try {
                k = key.get();
                if (!at(separator)) throw bad("expected '" + separator + "' after a dict key");
                pos++;
                path.addLast(k);
                Object v = expr();
                if (pos != close && !at(",")) throw bad("unexpected '" + t.text(pos, pos + 1) + "'");
                m.put(k, v);
                path.removeLast();
            } catch (Bad b) {
                entryFailed(b, k, entry, close, level, savedDepth);
                if (k != null) m.put(k, Skipped.SKIPPED);
            }
            if (at(",")) pos++;
        }
        pos = close + 1;
        depth--;
        return m;
    }

    /**
     * Reports a dict entry that could not be evaluated and moves past it: to the next ',' or the closing bracket
     * at the dict's own level, jumping over nested brackets by their partners (so each token is skipped at most
     * once). {@code level} and {@code savedDepth} are the key path's size and the nesting depth at the entry.
     */
    private void entryFailed(Bad b, String key, int entry, int close, int level, int savedDepth) {
        while (path.size() > level) path.removeLast();
        depth = savedDepth;
        String where = String.join(".", path) + (key != null ? "." + key : "");
        w.add("line " + lineOf(b.at) + ": " + where + " skipped: " + b.getMessage());
        int i = entry;
        while (i < close) {
            if (t.opener(i)) {
                int m = t.match[i];
                if (m < 0 || m > close) {
                    i = close;
                    break;
                }
                i = m + 1;
            } else if (t.isOp(i, ",")) {
                break;
            } else {
                i++;
            }
        }
        pos = i;
    }
}
