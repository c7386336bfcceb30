package dev.trainadvisor.pyliteral;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Python literals and constant expressions read as data. Expected values are worked out by hand from the Python text,
 * or computed independently with BigInteger / BigDecimal.
 */
class PyLiteralsTest {
    static Map<String, Object> globals(String src) {
        return PyLiterals.globals(src, new Warnings());
    }

    @Test
    void arithmeticFollowsPython() {
        Map<String, Object> g = globals("""
                A = 8 / 3
                B = 2**16
                C = 512 * 1024 * 1024
                D = 7 // 2
                E = -7 // 2
                F = -2**2
                G = 2**-1
                H = 2**3**2
                I = (1 + 2) * 3
                J = 10 - 2 - 3
                K = 7.0 // 2
                L = 1e-5
                M = 1_000
                N = 0x10
                O = 6 / 3
                P = B * 2 + 1
                Q = 2 // 0.001
                R = -7.5 // 2
                """);
        assertEquals(8.0 / 3, g.get("A"));
        assertEquals(65536L, g.get("B"));
        assertEquals(536870912L, g.get("C"));
        assertEquals(3L, g.get("D"));
        assertEquals(-4L, g.get("E"), "floor division rounds down");
        assertEquals(-4L, g.get("F"), "** binds tighter than unary minus");
        assertEquals(0.5, g.get("G"));
        assertEquals(512L, g.get("H"), "** is right-associative");
        assertEquals(9L, g.get("I"));
        assertEquals(5L, g.get("J"));
        assertEquals(3.0, g.get("K"));
        assertEquals(1e-5, g.get("L"));
        assertEquals(1000L, g.get("M"));
        assertEquals(16L, g.get("N"));
        assertEquals(2.0, g.get("O"), "/ is always a float");
        assertEquals(131073L, g.get("P"));
        assertEquals(1999.0, g.get("Q"), "floor of the exact quotient: 0.001 is a little above 1/1000");
        assertEquals(-4.0, g.get("R"));
    }

    @Test
    void literalsAndLayout() {
        Map<String, Object> g = globals("""
                S = "a" 'b'  # adjacent literals join
                T = \"""doc
                string\"""
                U = True
                V = None
                W = (1, 2,)
                X = [1, [2]]
                Y = {"a": 1, 'b': dict(c=2)}
                Z = (1 +
                     2)
                Q = 1 + \\
                    2
                R = 1; R2 = R + 1
                E = ()
                """);
        assertEquals("ab", g.get("S"));
        assertEquals("doc\nstring", g.get("T"));
        assertEquals(Boolean.TRUE, g.get("U"));
        assertEquals(PyNone.NONE, g.get("V"));
        assertEquals(List.of(1L, 2L), g.get("W"));
        assertEquals(List.of(1L, List.of(2L)), g.get("X"));
        assertEquals(Map.of("a", 1L, "b", Map.of("c", 2L)), g.get("Y"));
        assertEquals(3L, g.get("Z"), "continuation inside parentheses");
        assertEquals(3L, g.get("Q"), "backslash continuation");
        assertEquals(2L, g.get("R2"), "statements separated by ;");
        assertEquals(List.of(), g.get("E"));
    }

    @Test
    void onlyEarlierUpperCaseConstantsAreNames() {
        Warnings w = new Warnings();
        Map<String, Object> g = PyLiterals.globals("""
                A = LATER
                LATER = 1
                lower = 2
                B = lower
                C = int(3)
                D = f"{LATER}"
                E = 1 / 0
                F = 2**64
                G = 9223372036854775807 + 1
                H = os.environ["X"]
                R = 1
                R = R + 1
                """, w);
        assertEquals(Set.of("LATER", "lower", "R"), g.keySet());
        assertEquals(2L, g.get("R"), "a constant may be redefined from its old value");
        List<String> ws = w.list();
        assertEquals(8, ws.size(), ws.toString());
        assertTrue(ws.get(0).startsWith("line 1: A not evaluated: constant 'LATER' is not defined"), ws.get(0));
        assertTrue(ws.get(1).contains("name 'lower' is not an upper-case constant"), ws.get(1));
        assertTrue(ws.get(2).contains("call int(...) not evaluated"), ws.get(2));
        assertTrue(ws.get(3).contains("f-string"), ws.get(3));
        assertTrue(ws.get(4).contains("division by zero"), ws.get(4));
        assertTrue(ws.get(5).contains("integer overflow"), ws.get(5));
        assertTrue(ws.get(6).contains("integer overflow"), ws.get(6));
        assertTrue(ws.get(7).startsWith("line 10: H not evaluated: attribute access"), ws.get(7));
    }

    // ------------------------------------------------------------------ against an independent evaluation

    /** An integer expression, fully parenthesized, with its value by BigInteger; null where Python-in-64-bits refuses it. */
    record Expr(String text, BigInteger value) {}

    static final BigInteger MIN = BigInteger.valueOf(Long.MIN_VALUE), MAX = BigInteger.valueOf(Long.MAX_VALUE);

    static BigInteger inRange(BigInteger v) {
        return v == null || v.compareTo(MIN) < 0 || v.compareTo(MAX) > 0 ? null : v;
    }

    static Expr expr(Random r, int depth) {
        if (depth == 0 || r.nextInt(4) == 0) {
            long v = switch (r.nextInt(3)) {
                case 0 -> r.nextInt(10);
                case 1 -> r.nextInt(100_000);
                default -> Math.abs(r.nextLong() >> r.nextInt(64));
            };
            return new Expr(Long.toString(v), BigInteger.valueOf(v));
        }
        Expr a = expr(r, depth - 1);
        int op = r.nextInt(6);
        if (op == 5) {   // unary minus
            return new Expr("(-" + a.text() + ")", a.value() == null ? null : inRange(a.value().negate()));
        }
        if (op == 4) {   // a small literal power: integers stay integers
            int k = r.nextInt(7);
            BigInteger v = a.value() == null ? null : inRange(a.value().pow(k));
            // Python: 0 ** 0 == 1; the evaluator squares, so an intermediate square may overflow before the result
            // would: only compare where every square up to the result fits too
            if (v != null && a.value().abs().compareTo(BigInteger.ONE) > 0) {
                for (int e = 2; e <= k; e *= 2) if (inRange(a.value().pow(e)) == null) v = null;
            }
            return new Expr("(" + a.text() + " ** " + k + ")", v);
        }
        Expr b = expr(r, depth - 1);
        String sym = new String[] {"+", "-", "*", "//"}[op];
        BigInteger v = null;
        if (a.value() != null && b.value() != null) {
            BigInteger x = a.value(), y = b.value();
            v = switch (op) {
                case 0 -> x.add(y);
                case 1 -> x.subtract(y);
                case 2 -> x.multiply(y);
                default -> y.signum() == 0 ? null : floorDiv(x, y);
            };
            v = inRange(v);
        }
        return new Expr("(" + a.text() + " " + sym + " " + b.text() + ")", v);
    }

    /** Python's floor division of integers, rounding toward negative infinity. */
    static BigInteger floorDiv(BigInteger x, BigInteger y) {
        BigInteger[] qr = x.divideAndRemainder(y);
        return qr[1].signum() != 0 && (qr[1].signum() != y.signum()) ? qr[0].subtract(BigInteger.ONE) : qr[0];
    }

    @Test
    void integerArithmeticAgreesWithBigInteger() {
        Random r = new Random(20261201);
        int evaluated = 0, refused = 0;
        for (int i = 0; i < 3000; i++) {
            Expr e = expr(r, 4);
            Warnings w = new Warnings();
            Map<String, Object> g = PyLiterals.globals("A = " + e.text(), w);
            if (e.value() == null) {
                assertFalse(g.containsKey("A"), () -> e.text() + " is beyond 64 bits or divides by zero, got " + g.get("A"));
                assertEquals(1, w.list().size(), e.text());
                refused++;
            } else {
                assertEquals(e.value().longValueExact(), g.get("A"), e.text());
                evaluated++;
            }
        }
        assertTrue(evaluated > 1000 && refused > 100, evaluated + " evaluated, " + refused + " refused");
    }

    @Test
    void floatFloorDivisionIsTheFloorOfTheExactQuotient() {
        Random r = new Random(7);
        for (int i = 0; i < 20_000; i++) {
            double x = (r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(12) - 3);
            double y = (r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(8) - 3);
            if (y == 0 || Math.abs(x / y) > 1e12) continue;
            // the exact quotient of the two doubles, floored: what CPython's float // returns in this range
            double expected = new BigDecimal(x).divide(new BigDecimal(y), 60, RoundingMode.FLOOR)
                    .setScale(0, RoundingMode.FLOOR).doubleValue();
            assertEquals(expected, Evaluator.floorDiv(x, y), x + " // " + y);
        }
    }

    // ------------------------------------------------------------------ garbage and size

    @Test
    void randomTextNeverThrowsAndWarningsStayBounded() {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            for (String text : RandomSource.texts(11, 400)) {
                Warnings w = new Warnings();
                Map<String, Object> g = PyLiterals.globals(text, w);
                assertNotNull(g);
                assertTrue(w.list().size() <= Warnings.MAX + 1);
                for (Object v : g.values()) assertNotNull(v, "None is PyNone.NONE, never null");
            }
        });
    }

    @Test
    void longButWellFormedInputIsEvaluated() {
        int mb = 1 << 20;
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            assertEquals(mb / 2 + 1L, globals("A = 1" + "+1".repeat(mb / 2)).get("A"));
            String deep = "A = " + "(".repeat(150) + "7" + ")".repeat(150);
            assertEquals(7L, globals(deep).get("A"), "150 levels is within the bound");
            Warnings w = new Warnings();
            String tooDeep = "A = " + "(".repeat(PyLiterals.MAX_DEPTH + 1) + "7" + ")".repeat(PyLiterals.MAX_DEPTH + 1);
            assertFalse(PyLiterals.globals(tooDeep, w).containsKey("A"));
            assertTrue(w.list().get(0).contains("nested more than " + PyLiterals.MAX_DEPTH), w.list().toString());
            assertEquals(Set.of(), globals("A = " + "-".repeat(mb) + "1").keySet(), "1 MB of unary minus: refused");
        });
    }

    @Test
    void nullAndWarningsBound() {
        Warnings w = new Warnings();
        assertEquals(Map.of(), PyLiterals.globals(null, w));
        assertEquals(List.of("no config text"), w.list());
        Warnings many = new Warnings();
        PyLiterals.globals("import os\n".repeat(1000), many);
        assertEquals(Warnings.MAX + 1, many.list().size());
        assertEquals((1000 - Warnings.MAX) + " more warnings not shown", many.list().get(Warnings.MAX));
    }

    @Test
    void showIsPythonsSpelling() {
        assertEquals("True", PyLiterals.show(Boolean.TRUE));
        assertEquals("None", PyLiterals.show(PyNone.NONE));
        assertEquals("\"" + "x".repeat(40) + "...\"", PyLiterals.show("x".repeat(41)));
        assertEquals("a dict", PyLiterals.show(Map.of()));
        assertEquals("a list", PyLiterals.show(List.of()));
        assertEquals("3", PyLiterals.show(3L));
    }
}
