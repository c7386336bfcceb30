package dev.trainadvisor.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.annotation.JsonInclude;
import dev.trainadvisor.advice.Advice;
import dev.trainadvisor.advice.TrainAdvisor;
import dev.trainadvisor.assemble.RunFiles;
import dev.trainadvisor.spec.RunSpec;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/advice-json.md lists exactly the keys the JSON advice has: for every object of the advice (the top level, and
 * each nested object and array element, by its path: {@code prediction.memory}, {@code diagnoses[].evidence[]}), the
 * page's table for that path holds every key the writer emits and no other. The keys the writer emits are read two
 * ways that must agree: from the records Json writes (AdviceView's components, snake_case as Json names them), and
 * from the JSON printed for runs that exercise the optional parts (a log with assumed values, an offloading run).
 */
class AdviceJsonDocTest {
    static final Path PAGE = Path.of("docs/advice-json.md");
    /** Values whose inside is not the advice's own: the run as read (run-file keys) and a change (run-file keys). */
    static final Set<String> OPAQUE = Set.of("run", "recommendations[].change");

    private static final PropertyNamingStrategies.NamingBase SNAKE =
            (PropertyNamingStrategies.NamingBase) PropertyNamingStrategies.SNAKE_CASE;

    /** Path -> keys, from the records the writer serialises. */
    static Map<String, Set<String>> fromRecords() {
        Map<String, Set<String>> out = new TreeMap<>();
        walk(AdviceView.class, "", out);
        return out;
    }

    private static void walk(Class<?> record, String path, Map<String, Set<String>> out) {
        Set<String> keys = out.computeIfAbsent(path, p -> new TreeSet<>());
        for (RecordComponent c : record.getRecordComponents()) {
            String key = SNAKE.translate(c.getName());
            keys.add(key);
            String at = path.isEmpty() ? key : path + "." + key;
            if (OPAQUE.contains(at)) continue;
            Type t = c.getGenericType();
            if (c.getType().isRecord()) walk(c.getType(), at, out);
            else if (t instanceof ParameterizedType pt && List.class.isAssignableFrom(c.getType())
                    && pt.getActualTypeArguments()[0] instanceof Class<?> e && e.isRecord()) walk(e, at + "[]", out);
        }
    }

    /** Path -> keys, from printed JSON. */
    static void fromJson(JsonNode n, String path, Map<String, Set<String>> out) {
        if (n.isObject()) {
            Set<String> keys = out.computeIfAbsent(path, p -> new TreeSet<>());
            for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                keys.add(e.getKey());
                String at = path.isEmpty() ? e.getKey() : path + "." + e.getKey();
                if (!OPAQUE.contains(at)) fromJson(e.getValue(), at, out);
            }
        } else if (n.isArray()) {
            for (JsonNode x : n) if (x.isObject()) fromJson(x, path + "[]", out);
        }
    }

    /** Path -> keys, from the page: each "## `path`" heading's table ("## Top level" for the top). */
    static Map<String, Set<String>> fromPage() throws IOException {
        Map<String, Set<String>> out = new TreeMap<>();
        String section = null;
        Pattern row = Pattern.compile("^\\| `([a-z_0-9]+)` \\| ([^|]+) \\| ([^|]+) \\|$");
        for (String line : Files.readAllLines(PAGE)) {
            if (line.startsWith("## ")) {
                String h = line.substring(3).trim();
                section = h.equals("Top level") ? "" : h.startsWith("`") ? h.substring(1, h.length() - 1) : null;
                if (section != null) out.put(section, new TreeSet<>());
                continue;
            }
            Matcher m = row.matcher(line);
            if (section != null && m.matches()) {
                assertFalse(m.group(2).isBlank() || m.group(3).isBlank(), line);
                assertTrue(out.get(section).add(m.group(1)), "listed twice under " + section + ": " + m.group(1));
            }
        }
        return out;
    }

    static JsonNode advise(Path runFile) throws IOException {
        RunSpec spec = RunFiles.read(runFile);
        Advice a = TrainAdvisor.advise(spec.cluster(), spec.run());
        return Json.MAPPER.readTree(Json.of(a));
    }

    @Test
    void everyKeyTheWriterEmitsIsOnThePageAndNoOther() throws IOException {
        Map<String, Set<String>> records = fromRecords();
        Map<String, Set<String>> page = fromPage();
        assertEquals(13, records.get("").size(), "top-level keys: " + records.get(""));
        assertEquals(records.keySet(), page.keySet(), "the objects of the advice against the page's sections");
        for (String path : records.keySet()) assertEquals(records.get(path), page.get(path), "keys of '" + path + "'");
    }

    /** What the writer prints is what its records say: no key printed that the records lack, and every object reached. */
    @Test
    void theRecordsAreWhatIsPrinted() throws IOException {
        Map<String, Set<String>> printed = new TreeMap<>();
        for (String f : List.of("examples/internlm-7b-pcie-1node.yaml", "examples/internlm-7b-pcie-2nodes.yaml",
                "src/test/resources/runs/offload/fsdp2-cpu-offload-1xh200.yaml"))
            fromJson(advise(Path.of(f)), "", printed);
        Map<String, Set<String>> records = fromRecords();
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, Set<String>> e : printed.entrySet()) {
            Set<String> want = records.get(e.getKey());
            if (want == null) wrong.add("printed object " + e.getKey() + " is not a record of AdviceView");
            else if (!want.containsAll(e.getValue())) wrong.add(e.getKey() + ": printed " + e.getValue() + ", records " + want);
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
        // every object but the ones only some runs have was printed, with all its keys where nothing is left out
        for (String path : records.keySet())
            if (!path.equals("implausible[]") && !path.equals("assumed[]"))
                assertTrue(printed.containsKey(path), "no run printed " + path);
        assertEquals(records.get(""), printed.get(""));
        // the one key left out when null (MemoryView's host_gb) is printed by the offloading run
        assertTrue(AdviceView.MemoryView.class.isAnnotationPresent(JsonInclude.class));
        assertTrue(printed.get("prediction.memory").contains("host_gb"));
    }
}
