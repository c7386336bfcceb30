package dev.trainadvisor.engine;

import dev.trainadvisor.spec.SpecException;
import org.kie.api.KieBase;
import org.kie.api.KieServices;
import org.kie.api.builder.KieBuilder;
import org.kie.api.builder.KieFileSystem;
import org.kie.api.builder.Message;
import org.kie.api.io.ResourceType;
import org.kie.internal.utils.KieHelper;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Where the rule bases come from: DRL compiled here, once. */
final class KieBases {
    private KieBases() {}

    /** The shipped rules. */
    static KieBase shipped(Map<String, String> drlByFile) { return compile(drlByFile); }

    /**
     * Compiles DRL files (file name to text) into one rule base; a file that does not compile is an input error
     * naming the file, line and column of each problem.
     */
    static KieBase compile(Map<String, String> drlByFile) {
        KieHelper helper = new KieHelper();
        KieServices ks = KieServices.Factory.get();
        for (Map.Entry<String, String> e : drlByFile.entrySet()) {
            String path = "src/main/resources/" + e.getKey().replaceAll("[^A-Za-z0-9_./-]", "_").replaceFirst("^/+", "");
            if (!path.endsWith(".drl")) path += ".drl";
            helper.addResource(ks.getResources().newByteArrayResource(e.getValue().getBytes(StandardCharsets.UTF_8))
                    .setSourcePath(path).setResourceType(ResourceType.DRL), ResourceType.DRL);
        }
        var results = helper.verify();
        if (results.hasMessages(Message.Level.ERROR)) {
            List<String> lines = new ArrayList<>();
            for (Message m : results.getMessages(Message.Level.ERROR)) {
                String file = fileOf(m.getPath(), drlByFile);
                String text = m.getText().replaceAll("\\s+", " ").trim();
                int line = m.getLine();
                if (line < 1) line = lineOf(drlByFile.get(file), text);
                lines.add(file + ":" + (line < 1 ? "?" : line) + ": " + text);
            }
            throw new SpecException(String.join(", ", drlByFile.keySet().stream().filter(f -> lines.stream()
                    .anyMatch(l -> l.startsWith(f + ":"))).toList()), null, "rules that compile:\n  " + String.join("\n  ", lines));
        }
        return helper.build();
    }

    private static final java.util.regex.Pattern EXPRESSION =
            java.util.regex.Pattern.compile("Unable to Analyse Expression (.+?):(?: \\[|$)");

    /**
     * Drools reports some errors (MVEL's analysis of a constraint) without a line: the first line of the file that
     * holds the expression it names, or 0.
     */
    static int lineOf(String drl, String message) {
        if (drl == null) return 0;
        java.util.regex.Matcher m = EXPRESSION.matcher(message);
        if (!m.find()) return 0;
        String expr = m.group(1).trim();
        int at = drl.indexOf(expr);
        if (at < 0) return 0;
        return 1 + (int) drl.substring(0, at).chars().filter(c -> c == '\n').count();
    }

    /** The user's file name for the resource path Drools reports. */
    private static String fileOf(String path, Map<String, String> drlByFile) {
        if (path == null) return "?";
        for (String f : drlByFile.keySet()) {
            String p = f.replaceAll("[^A-Za-z0-9_./-]", "_").replaceFirst("^/+", "");
            if (path.endsWith(p) || path.endsWith(p + ".drl")) return f;
        }
        return path;
    }
}
