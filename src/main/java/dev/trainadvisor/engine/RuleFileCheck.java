package dev.trainadvisor.engine;

import dev.trainadvisor.input.SpecException;
import org.drools.base.definitions.InternalKnowledgePackage;
import org.drools.core.rule.JavaDialectRuntimeData;
import org.kie.api.KieBase;
import org.kie.api.definition.KiePackage;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a user's rule file may reach. A rule's conditions and consequences are Java (or MVEL) run inside train-advisor
 * with the user's rights, and Java 17 has no way to stop code it runs from ending the process ({@code System.exit}),
 * starting programs, opening files or sockets, or starting threads that outlive a time limit. So a rule file is refused
 * (bad input, exit 2, naming the file, the line and what it reaches for) when it uses any of these, checked twice:
 *
 * <ol>
 *   <li>in its text ({@link #checkText}): every identifier and dotted name outside strings and comments, after Java's
 *       {@code \\uXXXX} escapes are decoded as javac decodes them (so that {@code \\u0053ystem} is {@code System});</li>
 *   <li>in what it compiles to ({@link #checkCompiled}): every class and method that the bytecode of the compiled
 *       consequences, functions and accumulate code refers to (Drools' Java dialect; MVEL code is interpreted and has
 *       only the text check).</li>
 * </ol>
 *
 * What a rule file may use: the facts and what they return ({@code dev.trainadvisor.facts}, {@code perf}, {@code spec},
 * {@code history}), {@code Conclude}, and {@code java.lang}, {@code java.util}, {@code java.math}, {@code java.text} and
 * {@code java.time} except the members listed below. Anything that only computes is allowed; the time and firing limits
 * of {@link RuleEngine} stop a rule that computes for ever.
 */
public final class RuleFileCheck {
    private RuleFileCheck() {}

    /** Why a reference is refused, shown after what it names. */
    private static final String WHY_PROCESS = "it could end or stop the process, or run a program";
    private static final String WHY_THREADS = "it runs code on threads that the rules' time limit cannot stop";
    private static final String WHY_IO = "it reaches files, the network or the process's environment";
    private static final String WHY_REFLECT = "reflection reaches everything this list refuses";
    private static final String WHY_SESSION = "it stops or changes the rule session that every rule shares";
    private static final String WHY_TOOL = "it runs train-advisor's own commands or file readers";

    /** Simple names (java.lang's, visible without an import, and methods) a rule file may not use, and why. */
    static final Map<String, String> NAMES = new TreeMap<>();
    /** Dotted name prefixes (packages and classes) a rule file may not use, and why. */
    static final Map<String, String> QUALIFIED = new TreeMap<>();

    static {
        for (String n : List.of("System", "Runtime", "ProcessBuilder", "Process", "ProcessHandle", "SecurityManager",
                "StackWalker", "Shutdown")) NAMES.put(n, WHY_PROCESS);
        for (String n : List.of("Thread", "ThreadGroup", "Executors", "ExecutorService", "ForkJoinPool", "CompletableFuture",
                "Timer", "Cleaner")) NAMES.put(n, WHY_THREADS);
        for (String n : List.of("ClassLoader", "Module", "ModuleLayer", "MethodHandles", "MethodHandle", "Unsafe", "forName",
                "getClassLoader", "loadClass", "defineClass", "getMethod", "getMethods", "getDeclaredMethod",
                "getDeclaredMethods", "getField", "getFields", "getDeclaredField", "getDeclaredFields", "getConstructor",
                "getConstructors", "getDeclaredConstructor", "getDeclaredConstructors", "newInstance", "setAccessible",
                "getResource", "getResourceAsStream", "ServiceLoader", "ScriptEngineManager")) NAMES.put(n, WHY_REFLECT);
        for (String n : List.of("halt", "dispose", "destroy", "getKieRuntime", "getKnowledgeRuntime", "getKieBase",
                "getKnowledgeBase", "getWorkingMemory", "KieServices")) NAMES.put(n, WHY_SESSION);
        for (String n : List.of("RuleEngine", "KieBases")) NAMES.put(n, WHY_TOOL);
        for (String q : List.of("java.io", "java.nio", "java.net", "java.rmi", "java.sql", "java.util.prefs",
                "java.util.logging", "java.lang.management", "javax", "jdk", "sun", "com.sun"))
            QUALIFIED.put(q, WHY_IO);
        for (String q : List.of("java.lang.reflect", "java.lang.invoke", "java.lang.ref")) QUALIFIED.put(q, WHY_REFLECT);
        QUALIFIED.put("java.util.concurrent", WHY_THREADS);
        for (String q : List.of("org.drools", "org.kie.api.runtime", "org.kie.api.builder")) QUALIFIED.put(q, WHY_SESSION);
        for (String q : List.of("dev.trainadvisor.cli", "dev.trainadvisor.assemble", "dev.trainadvisor.input"))
            QUALIFIED.put(q, WHY_TOOL);
    }

    private static final java.util.regex.Pattern PACKAGE =
            java.util.regex.Pattern.compile("^\\s*package\\s+([\\p{javaJavaIdentifierPart}.]+)", java.util.regex.Pattern.MULTILINE);

    /** The package a DRL file declares (Drools' "defaultpkg" where it declares none). */
    static String packageOf(String drl) {
        String text = decode(drl).text;
        java.util.regex.Matcher m = PACKAGE.matcher(text);
        return m.find() ? m.group(1) : "defaultpkg";
    }

    /** The message's start: what a rule file is expected to be. */
    static final String EXPECTED = "a rule file whose rules match facts and conclude (README, \"Your own rules\"; docs/rules.md)";

    /**
     * Refuses a rule file whose text names anything {@link #NAMES} or {@link #QUALIFIED} lists, outside strings and
     * comments: {@code file} and the line in the message.
     */
    public static void checkText(String file, String drl) {
        Decoded d = decode(drl);
        String s = d.text;
        int n = s.length();
        List<int[]> idents = new ArrayList<>();   // start, end of each identifier; a dot between two joins them below
        List<Integer> dots = new ArrayList<>();
        int i = 0;
        while (i < n) {
            char c = s.charAt(i);
            if (c == '/' && i + 1 < n && s.charAt(i + 1) == '/') {
                while (i < n && s.charAt(i) != '\n') i++;
            } else if (c == '/' && i + 1 < n && s.charAt(i + 1) == '*') {
                int end = s.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (c == '"' && s.startsWith("\"\"\"", i)) {
                i = endOfTextBlock(s, i + 3);
            } else if (c == '"' || c == '\'') {
                i = endOfString(s, i + 1, c);
            } else if (Character.isJavaIdentifierStart(c)) {
                int start = i;
                while (i < n && Character.isJavaIdentifierPart(s.charAt(i))) i++;
                idents.add(new int[]{start, i});
            } else {
                if (c == '.') dots.add(i);
                i++;
            }
        }
        // a dotted name: identifiers joined by dots with only white space (no comment: javac allows one, so a comment
        // between parts is refused as the part it hides) between them
        java.util.Set<Integer> dotAt = new java.util.HashSet<>(dots);
        StringBuilder name = new StringBuilder();
        int nameStart = -1, prevEnd = -1;
        for (int[] id : idents) {
            String word = s.substring(id[0], id[1]);
            String why = NAMES.get(word);
            if (why != null) throw refused(file, d.line(id[0]), word, why);
            boolean joined = prevEnd >= 0 && joinedByDot(s, prevEnd, id[0], dotAt);
            if (!joined) {
                name.setLength(0);
                nameStart = id[0];
            } else name.append('.');
            name.append(word);
            String q = name.toString();
            for (Map.Entry<String, String> e : QUALIFIED.entrySet())
                if (q.equals(e.getKey())) throw refused(file, d.line(nameStart), q, e.getValue());
            prevEnd = id[1];
        }
    }

    private static boolean joinedByDot(String s, int from, int to, java.util.Set<Integer> dotAt) {
        int dotsSeen = 0;
        for (int k = from; k < to; k++) {
            char c = s.charAt(k);
            if (c == '.' && dotAt.contains(k)) dotsSeen++;
            else if (!Character.isWhitespace(c)) return false;
        }
        return dotsSeen == 1;
    }

    private static int endOfString(String s, int i, char quote) {
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '\\') i += 2;
            else if (c == quote) return i + 1;
            else if (c == '\n') return i;   // neither Java nor DRL strings span lines: what follows is read as code
            else i++;
        }
        return s.length();
    }

    private static int endOfTextBlock(String s, int i) {
        while (i < s.length()) {
            if (s.charAt(i) == '\\') i += 2;
            else if (s.startsWith("\"\"\"", i)) return i + 3;
            else i++;
        }
        return s.length();
    }

    private static SpecException refused(String file, int line, String what, String why) {
        return new SpecException(file, null, EXPECTED + "; line " + line + " uses " + what + ", which a rule file may not: "
                + why + ". A rule file is code that runs with your rights: docs/rules.md says what it may do");
    }

    /** A rule file's text with Java's unicode escapes decoded, and the original line of each character. */
    private record Decoded(String text, int[] lines) {
        int line(int at) { return lines.length == 0 ? 1 : lines[Math.min(at, lines.length - 1)]; }
    }

    /** javac's decoding: a backslash preceded by an even number of backslashes, one or more u's, four hex digits. */
    static Decoded decode(String drl) {
        StringBuilder out = new StringBuilder(drl.length());
        int[] lines = new int[drl.length() + 1];
        int line = 1, backslashes = 0;
        for (int i = 0; i < drl.length(); ) {
            char c = drl.charAt(i);
            if (c == '\\' && backslashes % 2 == 0 && i + 1 < drl.length() && drl.charAt(i + 1) == 'u') {
                int j = i + 1;
                while (j < drl.length() && drl.charAt(j) == 'u') j++;
                if (j + 4 <= drl.length() && isHex(drl, j)) {
                    lines[out.length()] = line;
                    out.append((char) Integer.parseInt(drl.substring(j, j + 4), 16));
                    backslashes = 0;
                    i = j + 4;
                    continue;
                }
            }
            backslashes = c == '\\' ? backslashes + 1 : 0;
            lines[out.length()] = line;
            out.append(c);
            if (c == '\n') line++;
            i++;
        }
        return new Decoded(out.toString(), java.util.Arrays.copyOf(lines, out.length()));
    }

    private static boolean isHex(String s, int at) {
        for (int k = at; k < at + 4; k++) if (Character.digit(s.charAt(k), 16) < 0) return false;
        return true;
    }

    // ------------------------------------------------------------------------------------------------- bytecode

    /** Classes (internal names) and prefixes ending in '/' the compiled code may not refer to, and why. */
    static final Map<String, String> CLASSES = new TreeMap<>();
    /** Of java/lang/invoke, only what javac emits for a lambda or a string concatenation. */
    /**
     * Classes of the listed packages that Drools' generated classes name and that do nothing alone: a DRL function's
     * class is Externalizable, and no rule can make the object streams its methods are handed without java.io's classes.
     */
    private static final Set<String> GENERATED = Set.of("java/io/Serializable", "java/io/Externalizable",
            "java/io/ObjectInput", "java/io/ObjectOutput", "java/io/IOException");
    private static final Set<String> INVOKE_INFRASTRUCTURE = Set.of("java/lang/invoke/LambdaMetafactory",
            "java/lang/invoke/StringConcatFactory", "java/lang/invoke/MethodHandles$Lookup", "java/lang/invoke/MethodHandles",
            "java/lang/invoke/MethodHandle", "java/lang/invoke/MethodType", "java/lang/invoke/CallSite");
    /** The methods of java/lang/Class compiled code may call (assertions, casts, names); the rest is reflection. */
    private static final Set<String> CLASS_METHODS = Set.of("getName", "getSimpleName", "isInstance", "cast",
            "isAssignableFrom", "desiredAssertionStatus", "equals", "hashCode", "toString", "getEnumConstants");
    /** Methods of the engine's own types (org/drools, org/kie) a rule's code may not call. */
    private static final Set<String> SESSION_METHODS = Set.of("halt", "dispose", "destroy", "getKieRuntime",
            "getKnowledgeRuntime", "getKieBase", "getKnowledgeBase", "getWorkingMemory", "getKieSession");

    static {
        for (String c : List.of("java/lang/System", "java/lang/Runtime", "java/lang/ProcessBuilder", "java/lang/Process",
                "java/lang/ProcessHandle", "java/lang/SecurityManager", "java/lang/StackWalker", "java/lang/Shutdown"))
            CLASSES.put(c, WHY_PROCESS);
        for (String c : List.of("java/lang/Thread", "java/lang/ThreadGroup", "java/util/Timer", "java/util/concurrent/"))
            CLASSES.put(c, WHY_THREADS);
        for (String c : List.of("java/lang/ClassLoader", "java/lang/Module", "java/lang/ModuleLayer", "java/lang/reflect/",
                "java/lang/invoke/", "java/lang/ref/", "java/util/ServiceLoader")) CLASSES.put(c, WHY_REFLECT);
        for (String c : List.of("java/io/", "java/nio/", "java/net/", "java/rmi/", "java/sql/", "java/util/prefs/",
                "java/util/logging/", "java/lang/management/", "javax/", "jdk/", "sun/", "com/sun/")) CLASSES.put(c, WHY_IO);
        for (String c : List.of("dev/trainadvisor/cli/", "dev/trainadvisor/assemble/", "dev/trainadvisor/input/",
                "dev/trainadvisor/engine/RuleEngine", "dev/trainadvisor/engine/KieBases")) CLASSES.put(c, WHY_TOOL);
    }

    /**
     * Refuses a rule base whose compiled Java code (consequences, functions, accumulate code) refers to a class or
     * method {@link #CLASSES} lists. Each class compiled from a package of {@code packagesByFile} is checked; a refusal
     * names the file of the package (and the rule, where the class is a rule's).
     *
     * @param packagesByFile the user's files by the package each declares
     */
    public static void checkCompiled(KieBase kieBase, Map<String, String> packagesByFile) {
        for (KiePackage pkg : kieBase.getKiePackages()) {
            List<String> files = new ArrayList<>();
            for (Map.Entry<String, String> e : packagesByFile.entrySet()) if (e.getValue().equals(pkg.getName())) files.add(e.getKey());
            if (files.isEmpty() || !(pkg instanceof InternalKnowledgePackage ip)) continue;
            if (!(ip.getDialectRuntimeRegistry().getDialectData("java") instanceof JavaDialectRuntimeData java)) continue;
            for (Map.Entry<String, byte[]> c : new TreeMap<>(java.getStore()).entrySet()) {
                String refused = refusedReference(c.getValue());
                if (refused == null) continue;
                String[] parts = refused.split("\t", 2);
                throw new SpecException(String.join(", ", files), null, EXPECTED + "; its compiled code ("
                        + describeClass(c.getKey()) + ") uses " + parts[0].replace('/', '.') + ", which a rule file may not: "
                        + parts[1] + ". A rule file is code that runs with your rights: docs/rules.md says what it may do");
            }
        }
    }

    /** "rule X" for Drools' class of a rule's consequence (package/Rule_X1234...), else the class name. */
    private static String describeClass(String resource) {
        String simple = resource.substring(resource.lastIndexOf('/') + 1).replace(".class", "");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("Rule_(.+?)\\d+(?:DefaultConsequenceInvoker.*|Eval\\d+.*|"
                + "Accumulate\\d+.*)?$").matcher(simple);
        return m.matches() ? "the rule " + m.group(1).replace('_', ' ') : "the class " + simple + ", a function's or a declared type's";
    }

    /** The first refused reference of a class file as "name\twhy", or null; a class file that cannot be read is refused. */
    static String refusedReference(byte[] classFile) {
        try {
            ConstantPool cp = ConstantPool.read(classFile);
            for (String c : cp.classes) {
                String why = whyClass(c);
                if (why != null) return c + "\t" + why;
            }
            for (String[] m : cp.members) {
                String owner = elementType(m[0]), name = m[1];
                if (owner.equals("java/lang/Class") && !CLASS_METHODS.contains(name))
                    return owner + "." + name + "\t" + WHY_REFLECT;
                if ((owner.startsWith("org/drools/") || owner.startsWith("org/kie/")) && SESSION_METHODS.contains(name))
                    return owner + "." + name + "\t" + WHY_SESSION;
                if (owner.startsWith("java/lang/invoke/") && !(owner.equals("java/lang/invoke/LambdaMetafactory")
                        || owner.equals("java/lang/invoke/StringConcatFactory")))
                    return owner + "." + name + "\t" + WHY_REFLECT;
            }
            return null;
        } catch (IOException | RuntimeException e) {
            return "a class file this check cannot read\tit cannot be checked";
        }
    }

    private static String whyClass(String internal) {
        String c = elementType(internal);
        if (INVOKE_INFRASTRUCTURE.contains(c) || GENERATED.contains(c)) return null;
        for (Map.Entry<String, String> e : CLASSES.entrySet()) {
            String k = e.getKey();
            if (k.endsWith("/") ? c.startsWith(k) : c.equals(k) || c.startsWith(k + "$")) return e.getValue();
        }
        return null;
    }

    /** The class of an array type descriptor ("[Ljava/lang/Thread;" is java/lang/Thread), else the name itself. */
    private static String elementType(String internal) {
        String c = internal;
        while (c.startsWith("[")) c = c.substring(1);
        if (c.startsWith("L") && c.endsWith(";")) c = c.substring(1, c.length() - 1);
        return c;
    }

    /** The classes and the members (owner, name) a class file's constant pool names. */
    private static final class ConstantPool {
        final List<String> classes = new ArrayList<>();
        final List<String[]> members = new ArrayList<>();

        static ConstantPool read(byte[] bytes) throws IOException {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
            if (in.readInt() != 0xCAFEBABE) throw new IOException("not a class file");
            in.readUnsignedShort();
            in.readUnsignedShort();
            int count = in.readUnsignedShort();
            String[] utf8 = new String[count];
            int[] classIndex = new int[count];
            int[][] memberRef = new int[count][];
            int[][] nameAndType = new int[count][];
            for (int k = 1; k < count; k++) {
                int tag = in.readUnsignedByte();
                switch (tag) {
                    case 1 -> utf8[k] = in.readUTF();
                    case 3, 4 -> in.readInt();
                    case 5, 6 -> {
                        in.readLong();
                        k++;
                    }
                    case 7 -> classIndex[k] = in.readUnsignedShort();
                    case 8, 16, 19, 20 -> in.readUnsignedShort();
                    case 9, 10, 11 -> memberRef[k] = new int[]{in.readUnsignedShort(), in.readUnsignedShort()};
                    case 12 -> nameAndType[k] = new int[]{in.readUnsignedShort(), in.readUnsignedShort()};
                    case 15 -> {
                        in.readUnsignedByte();
                        in.readUnsignedShort();
                    }
                    case 17, 18 -> in.readInt();
                    default -> throw new IOException("constant pool tag " + tag);
                }
            }
            ConstantPool cp = new ConstantPool();
            for (int k = 1; k < count; k++) {
                if (classIndex[k] != 0) cp.classes.add(utf8[classIndex[k]]);
                if (memberRef[k] != null) {
                    String owner = utf8[classIndex[memberRef[k][0]]];
                    String name = utf8[nameAndType[memberRef[k][1]][0]];
                    cp.members.add(new String[]{owner, name});
                }
            }
            return cp;
        }
    }
}
