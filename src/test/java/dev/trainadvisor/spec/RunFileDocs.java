package dev.trainadvisor.spec;

import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Writes docs/run-file.md and docs/run-file.schema.json from the one table of run-file keys ({@link RunFileKeys}):
 * RunFileDocsTest fails when the committed files differ from what this gives now, and writes them anew when run with
 * {@code -Dtrainadvisor.writeDocs=true}.
 */
final class RunFileDocs {
    private RunFileDocs() {}

    static final Path MARKDOWN = Path.of("docs/run-file.md");
    static final Path SCHEMA = Path.of("docs/run-file.schema.json");
    /** The complete example the page shows, read from the file so that it is the one that runs. */
    static final Path EXAMPLE = Path.of("examples/internlm-7b-pcie-1node.yaml");

    static final String REGENERATE = "mvn -B -ntp test -Dtest=RunFileDocsTest -Dtrainadvisor.writeDocs=true";

    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final YAMLMapper YAML = new YAMLMapper();

    /** The sections of the table in its order: "" (the top), "cluster", "cluster.intra_node", ... */
    static List<String> sections() {
        Set<String> out = new LinkedHashSet<>();
        for (RunFileKeys.Key k : RunFileKeys.all()) out.add(k.section());
        return List.copyOf(out);
    }

    /** A value as a run file writes it, read from its YAML text ("0.5", "{optimizer: cpu}", "\"0.11\""). */
    static JsonNode yaml(String text) {
        try {
            return YAML.readTree("v: " + text).get("v");
        } catch (IOException e) {
            throw new UncheckedIOException("example '" + text + "'", e);
        }
    }

    // ------------------------------------------------------------------ markdown

    static String markdown() {
        StringBuilder s = new StringBuilder();
        s.append("# Run files\n\n");
        s.append("<!-- Generated from src/main/java/dev/trainadvisor/spec/RunFileKeys.java by RunFileDocs (src/test): edit the ")
                .append("table there and regenerate with `").append(REGENERATE).append("`; RunFileDocsTest fails while this ")
                .append("file differs from what the table gives. -->\n\n");
        s.append("""
                A run file describes one training run: the cluster, the model, the layout, how the step runs and, where the run
                measured them, its times. It is JSON or YAML with snake_case keys. Every key the reader accepts is below, with
                its type, default, allowed values and an example; the reader takes these keys and no others, from the same
                table this page is generated from. An unknown key is refused with the keys known there and the nearest one;
                a key written without a value (`micro_batches:`) is refused rather than taken as its default (only `moe:`
                may be null: a dense model); a number outside its range is refused with the range. Every error names the
                file, the dotted field and what was expected, and exits with code 2.

                Words of a fixed set (`bf16`, `selective`, `shm`) are read without regard to case; catalogue keys (GPUs,
                links, networks, presets, frameworks) also through their aliases and without regard to case or punctuation
                (`a100 sxm4 80gb` is `A100-SXM4-80GB`). The JSON Schema
                [`run-file.schema.json`](run-file.schema.json) (draft 2020-12), generated from the same table, offers the
                canonical spellings and the aliases to editors: with the YAML extension of VS Code or any editor on
                yaml-language-server, put `# yaml-language-server: $schema=<path to docs/run-file.schema.json>` on a run
                file's first line. The schema checks each key and value alone; what the reader checks across keys (tp x pp
                x cp x dp is the GPUs, a kernel the GPU runs, offload a framework has) only the reader checks
                (`train-advisor advise RUN`).

                A run file may name other files (`log:`, `config:`, `nccl_tests:`, `topology:`, relative to the run file's
                folder): what they give fills what the file leaves out, and a value both give differently is an error.
                With a `log:` or a `config:`, the keys marked required may come from the log instead; what neither gives
                is assumed and listed in the advice (`assumed`, [advice-json.md](advice-json.md)). A run file that names no
                log takes the defaults below and assumes nothing. `batch DIR` also reads `DIR/runs.yaml`: a mapping of log
                file names to the run-file keys that describe each log (any of the keys below but `log:`), plus
                `defaults:` that apply to every log of the folder ([README](../README.md#3-a-folder-of-past-runs)).

                A complete run file, [`examples/internlm-7b-pcie-1node.yaml`](../examples/internlm-7b-pcie-1node.yaml):

                """);
        s.append("```yaml\n").append(read(EXAMPLE).strip()).append("\n```\n\n");
        s.append("Sections: ");
        List<String> links = new ArrayList<>();
        for (String section : sections()) links.add("[" + title(section) + "](#" + anchor(section) + ")");
        s.append(String.join(", ", links)).append(".\n");
        for (String section : sections()) {
            s.append("\n## ").append(title(section)).append("\n\n");
            RunFileKeys.Key self = RunFileKeys.at(section);
            if (self != null) s.append(self.means().substring(0, 1).toUpperCase(Locale.ROOT)).append(self.means().substring(1))
                    .append(".\n\n");
            s.append("| key | type | default | values | means | example |\n|---|---|---|---|---|---|\n");
            for (RunFileKeys.Key k : RunFileKeys.all()) {
                if (!k.section().equals(section)) continue;
                s.append("| `").append(k.name()).append("` | ").append(type(k.value())).append(" | ")
                        .append(cell(k.dflt())).append(" | ").append(cell(values(k.value()))).append(" | ")
                        .append(cell(k.means())).append(" | ").append(cell(example(k))).append(" |\n");
            }
        }
        s.append("\n## Frameworks and their versions\n\n");
        s.append("`training.framework` names a profile of [`knowledge-base/frameworks/`](../knowledge-base/frameworks/) "
                + "(its README gives the profile's schema); `training.framework_version` one of its versions, where its "
                + "behaviour changed ([model.md](model.md#frameworks) says what each does).\n\n");
        s.append("| framework | also named | versions | default version |\n|---|---|---|---|\n");
        for (Frameworks.Profile p : Frameworks.builtIn().profiles().values()) {
            List<String> versions = new ArrayList<>();
            for (String v : p.versions().keySet()) if (v != null) versions.add("`" + v + "`");
            s.append("| `").append(p.key()).append("` | ").append(cell(String.join(", ", p.aliases()))).append(" | ")
                    .append(versions.isEmpty() ? "" : String.join(", ", versions)).append(" | ")
                    .append(p.defaultVersion() == null ? "" : "`" + p.defaultVersion() + "`").append(" |\n");
        }
        return s.toString();
    }

    static String title(String section) { return section.isEmpty() ? "Top level" : "`" + section + "`"; }

    /** GitHub's anchor of a heading: lower case, punctuation but - and _ dropped, spaces as -. */
    static String anchor(String section) {
        String t = section.isEmpty() ? "top level" : section;
        StringBuilder b = new StringBuilder();
        for (char c : t.toLowerCase(Locale.ROOT).toCharArray()) {
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') b.append(c);
            else if (c == ' ') b.append('-');
        }
        return b.toString();
    }

    private static String cell(String text) { return text.replace("|", "\\|").replace("\n", " "); }

    private static String example(RunFileKeys.Key k) {
        StringBuilder s = new StringBuilder("`" + k.name() + ": " + k.example() + "`");
        if (!k.with().isEmpty()) {
            List<String> with = new ArrayList<>();
            for (Map.Entry<String, String> w : k.with().entrySet()) with.add("`" + w.getKey() + ": " + w.getValue() + "`");
            s.append(" (with ").append(String.join(", ", with)).append(")");
        }
        return s.toString();
    }

    static String type(RunFileKeys.Value v) {
        if (v instanceof RunFileKeys.Int) return "integer";
        if (v instanceof RunFileKeys.Num) return "number";
        if (v instanceof RunFileKeys.Bool) return "boolean";
        if (v instanceof RunFileKeys.Text t) return t.file() ? "path" : "string";
        if (v instanceof RunFileKeys.Version) return "string";
        if (v instanceof RunFileKeys.OneOf || v instanceof RunFileKeys.Pattern) return "string";
        if (v instanceof RunFileKeys.Section sec) return sec.nullable() ? "object or null" : "object";
        return "string or object";
    }

    static String values(RunFileKeys.Value v) {
        if (v instanceof RunFileKeys.Int i) return number(i.min()) + " to " + number(i.max());
        if (v instanceof RunFileKeys.Num n) {
            String range = (n.exclusiveMin() ? "above " + number(n.min()) : number(n.min())) + " to " + number(n.max());
            return n.alsoZero() ? "0, or " + range : range;
        }
        if (v instanceof RunFileKeys.Bool) return "`true`, `false`";
        if (v instanceof RunFileKeys.Text t) return t.file() ? "a file, relative to the run file's folder" : "any text";
        if (v instanceof RunFileKeys.Version) return "a version of the framework's profile (below)";
        if (v instanceof RunFileKeys.OneOf o) return oneOf(o);
        if (v instanceof RunFileKeys.Pattern p) return words(p.shown());
        if (v instanceof RunFileKeys.Section sec) return "the keys of [" + title(sec.path()) + "](#" + anchor(sec.path()) + ")"
                + (sec.nullable() ? ", or null" : "");
        RunFileKeys.NameOr n = (RunFileKeys.NameOr) v;
        return oneOf(n.name()) + "; or the keys of [" + title(n.path()) + "](#" + anchor(n.path()) + ")";
    }

    private static String oneOf(RunFileKeys.OneOf o) {
        if (o.catalogue() == null) return words(o.list());
        // the keys alone: the aliases follow them in the list, and the catalog command prints them
        List<String> keys = new ArrayList<>();
        for (String k : o.list()) {
            if (isAlias(o, k)) break;
            keys.add(k);
        }
        boolean aliases = keys.size() < o.list().size();
        return "a key of [`" + o.catalogue() + "`](../" + o.catalogue().replaceAll(" \\(.*\\)$", "") + "): " + words(keys)
                + (aliases ? " (or an alias: `train-advisor catalog` lists them)" : "");
    }

    /** Whether {@code k} is past the catalogue's own keys in the list (keys come first, then the aliases). */
    private static boolean isAlias(RunFileKeys.OneOf o, String k) {
        String c = o.catalogue();
        if (c.startsWith("knowledge-base/gpus.json (")) return false;
        if (c.equals("knowledge-base/gpus.json")) return !Catalog.builtIn().gpus().containsKey(k);
        if (c.equals("knowledge-base/links.json")) return !Catalog.builtIn().links().containsKey(k);
        if (c.equals("knowledge-base/networks.json")) return !Catalog.builtIn().networks().containsKey(k);
        if (c.equals("knowledge-base/hosts.json")) return !Hosts.builtIn().hosts().containsKey(k);
        if (c.equals("knowledge-base/frameworks/")) return !Frameworks.builtIn().profiles().containsKey(k);
        return false;
    }

    private static String words(List<String> words) {
        List<String> out = new ArrayList<>();
        for (String w : words) out.add("`" + w + "`");
        return String.join(", ", out);
    }

    private static String number(double x) {
        if (x == Math.rint(x) && Math.abs(x) < 1e9) return String.format(Locale.ROOT, "%,d", (long) x);
        return java.math.BigDecimal.valueOf(x).stripTrailingZeros().toString().replace("E+", "e").replace("E", "e");
    }

    // ------------------------------------------------------------------ JSON Schema

    /** The sections a log or an InternEvo config may fill: their required keys are required only without one. */
    private static boolean conditional(String section) {
        return section.isEmpty() || section.equals("cluster") || section.startsWith("model") || section.equals("training");
    }

    static String schema() {
        ObjectNode root = F.objectNode();
        root.put("$schema", "https://json-schema.org/draft/2020-12/schema");
        root.put("title", "train-advisor run file");
        root.put("description", "A run file of train-advisor (docs/run-file.md). Generated from RunFileKeys: do not edit.");
        ObjectNode defs = F.objectNode();
        for (String section : sections()) {
            ObjectNode def = section(section);
            if (section.isEmpty()) root.setAll(def);
            else defs.set(section, def);
        }
        // without a log or a config, what they would fill is required of the file
        ObjectNode condition = F.objectNode();
        ArrayNode either = condition.putObject("not").putArray("anyOf");
        either.addObject().putArray("required").add("log");
        either.addObject().putArray("required").add("config");
        root.set("if", condition);
        root.set("then", requiredWithoutLog(""));
        root.set("$defs", defs);
        return write(root);
    }

    private static ObjectNode section(String section) {
        ObjectNode def = F.objectNode();
        def.put("type", "object");
        ObjectNode props = def.putObject("properties");
        List<String> required = new ArrayList<>();
        for (RunFileKeys.Key k : RunFileKeys.all()) {
            if (!k.section().equals(section)) continue;
            ObjectNode p = value(k.value());
            p.put("description", k.means() + ". Default: " + k.dflt() + ".");
            p.putArray("examples").add(yaml(k.example()));
            props.set(k.name(), p);
            if (k.required()) required.add(k.name());
        }
        def.put("additionalProperties", false);
        if (section.equals("cluster.gpu.peak_tflops")) {
            ArrayNode any = def.putArray("anyOf");
            any.addObject().putArray("required").add("bf16");
            any.addObject().putArray("required").add("fp16");
        } else if (!conditional(section) && !required.isEmpty()) {
            ArrayNode r = def.putArray("required");
            required.forEach(r::add);
        }
        return def;
    }

    /** The required keys of a section and of the sections inside it, for a file that names no log or config. */
    private static ObjectNode requiredWithoutLog(String section) {
        ObjectNode out = F.objectNode();
        List<String> required = new ArrayList<>();
        boolean preset = false;
        ObjectNode props = F.objectNode();
        for (RunFileKeys.Key k : RunFileKeys.all()) {
            if (!k.section().equals(section)) continue;
            if (k.name().equals("preset")) preset = true;
            if (k.required()) required.add(k.name());
            String inner = k.value() instanceof RunFileKeys.Section s ? s.path()
                    : k.value() instanceof RunFileKeys.NameOr n ? n.path() : null;
            if (inner != null && conditional(inner)) props.set(k.name(), requiredWithoutLog(inner));
        }
        if (preset) {
            // a preset gives what the section requires
            ArrayNode any = out.putArray("anyOf");
            any.addObject().putArray("required").add("preset");
            ArrayNode r = any.addObject().putArray("required");
            required.forEach(r::add);
        } else if (!required.isEmpty()) {
            ArrayNode r = out.putArray("required");
            required.forEach(r::add);
        }
        if (!props.isEmpty()) out.set("properties", props);
        return out;
    }

    private static ObjectNode value(RunFileKeys.Value v) {
        ObjectNode s = F.objectNode();
        if (v instanceof RunFileKeys.Int i) {
            s.put("type", "integer");
            s.put("minimum", i.min());
            s.put("maximum", i.max());
        } else if (v instanceof RunFileKeys.Num n) {
            s.put("type", "number");
            if (n.alsoZero()) {
                ArrayNode any = s.putArray("anyOf");
                any.addObject().put("const", 0);
                any.addObject().put("minimum", n.min());
            } else if (n.exclusiveMin()) {
                s.put("exclusiveMinimum", n.min());
            } else {
                s.put("minimum", n.min());
            }
            s.put("maximum", n.max());
        } else if (v instanceof RunFileKeys.Bool) {
            s.put("type", "boolean");
        } else if (v instanceof RunFileKeys.Text) {
            s.put("type", "string");
            s.put("maxLength", SpecReader.MAX_STRING_CHARS);
        } else if (v instanceof RunFileKeys.Version) {
            s.putArray("type").add("string").add("number");
        } else if (v instanceof RunFileKeys.OneOf o) {
            s.put("type", "string");
            ArrayNode e = s.putArray("enum");
            o.list().forEach(e::add);
        } else if (v instanceof RunFileKeys.Pattern p) {
            s.put("type", "string");
            s.put("pattern", p.regex());
        } else if (v instanceof RunFileKeys.Section sec) {
            if (sec.nullable()) {
                ArrayNode any = s.putArray("anyOf");
                any.addObject().put("$ref", "#/$defs/" + sec.path());
                any.addObject().put("type", "null");
            } else {
                s.put("$ref", "#/$defs/" + sec.path());
            }
        } else {
            RunFileKeys.NameOr n = (RunFileKeys.NameOr) v;
            ArrayNode any = s.putArray("anyOf");
            any.add(value(n.name()));
            any.addObject().put("$ref", "#/$defs/" + n.path());
        }
        return s;
    }

    private static String write(JsonNode n) {
        DefaultPrettyPrinter pp = new DefaultPrettyPrinter(com.fasterxml.jackson.core.util.Separators.createDefaultInstance()
                .withObjectFieldValueSpacing(com.fasterxml.jackson.core.util.Separators.Spacing.AFTER))
                .withObjectIndenter(new DefaultIndenter("  ", "\n")).withArrayIndenter(new DefaultIndenter("  ", "\n"));
        try {
            return new ObjectMapper().writer(pp).writeValueAsString(n) + "\n";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What each generated file should hold now. */
    static Map<Path, String> files() {
        Map<Path, String> out = new LinkedHashMap<>();
        out.put(MARKDOWN, markdown());
        out.put(SCHEMA, schema());
        return out;
    }
}
