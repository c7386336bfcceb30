package dev.trainadvisor.spec;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A checker of exactly the JSON Schema (draft 2020-12) subset that RunFileDocs writes into docs/run-file.schema.json:
 * {@code type} (one name or a list), {@code enum}, {@code const}, {@code minimum}, {@code maximum},
 * {@code exclusiveMinimum}, {@code maxLength}, {@code pattern} (unanchored, as the specification says), {@code anyOf},
 * {@code not}, {@code if}/{@code then}, {@code required}, {@code properties}, {@code additionalProperties: false} and
 * {@code $ref} to {@code #/$defs/NAME}, with the annotations {@code $schema}, {@code title}, {@code description},
 * {@code examples} and {@code $defs}. A keyword outside this list throws, so that a generator that starts writing one
 * makes the test that uses this fail rather than pass unchecked.
 */
final class SchemaCheck {
    private static final Set<String> ANNOTATIONS = Set.of("$schema", "title", "description", "examples", "$defs");
    private static final Set<String> ASSERTIONS = Set.of("type", "enum", "const", "minimum", "maximum", "exclusiveMinimum",
            "maxLength", "pattern", "anyOf", "not", "if", "then", "required", "properties", "additionalProperties", "$ref");

    private final JsonNode root;

    SchemaCheck(JsonNode root) { this.root = root; }

    /** What is wrong with {@code instance}, one line a violation with its JSON pointer; empty when it is valid. */
    List<String> errors(JsonNode instance) {
        List<String> out = new ArrayList<>();
        check(root, instance, "", out);
        return out;
    }

    boolean valid(JsonNode instance) { return errors(instance).isEmpty(); }

    private void check(JsonNode schema, JsonNode x, String at, List<String> out) {
        for (Iterator<String> it = schema.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!ANNOTATIONS.contains(k) && !ASSERTIONS.contains(k))
                throw new IllegalStateException("keyword '" + k + "' at schema " + at + " is outside the subset SchemaCheck knows");
        }
        if (schema.has("$ref")) {
            String ref = schema.get("$ref").asText();
            if (!ref.startsWith("#/$defs/")) throw new IllegalStateException("a $ref SchemaCheck cannot follow: " + ref);
            JsonNode target = root.path("$defs").get(ref.substring("#/$defs/".length()));
            if (target == null) throw new IllegalStateException("a $ref to nothing: " + ref);
            check(target, x, at, out);
        }
        if (schema.has("type") && !typeOk(schema.get("type"), x)) out.add(at + ": " + kind(x) + ", expected " + schema.get("type"));
        if (schema.has("enum")) {
            boolean any = false;
            for (JsonNode e : schema.get("enum")) any |= same(e, x);
            if (!any) out.add(at + ": " + x + " is not one of the enum's " + schema.get("enum").size() + " values");
        }
        if (schema.has("const") && !same(schema.get("const"), x)) out.add(at + ": " + x + ", expected " + schema.get("const"));
        if (x.isNumber()) {
            double v = x.asDouble();
            if (schema.has("minimum") && v < schema.get("minimum").asDouble()) out.add(at + ": " + v + " below minimum " + schema.get("minimum"));
            if (schema.has("maximum") && v > schema.get("maximum").asDouble()) out.add(at + ": " + v + " above maximum " + schema.get("maximum"));
            if (schema.has("exclusiveMinimum") && v <= schema.get("exclusiveMinimum").asDouble())
                out.add(at + ": " + v + " not above " + schema.get("exclusiveMinimum"));
        }
        if (x.isTextual()) {
            String s = x.asText();
            if (schema.has("maxLength") && s.codePointCount(0, s.length()) > schema.get("maxLength").asInt())
                out.add(at + ": longer than " + schema.get("maxLength"));
            if (schema.has("pattern") && !Pattern.compile(schema.get("pattern").asText()).matcher(s).find())
                out.add(at + ": '" + s + "' does not match " + schema.get("pattern").asText());
        }
        if (schema.has("anyOf")) {
            // where none matches, say why each did not
            List<String> why = new ArrayList<>();
            boolean any = false;
            for (JsonNode alt : schema.get("anyOf")) {
                List<String> sub = new ArrayList<>();
                check(alt, x, at, sub);
                any |= sub.isEmpty();
                why.addAll(sub);
            }
            if (!any) out.add(at + ": matches no alternative of anyOf: " + String.join("; ", why));
        }
        if (schema.has("not") && matches(schema.get("not"), x, at)) out.add(at + ": matches 'not' " + schema.get("not"));
        if (schema.has("if") && schema.has("then") && matches(schema.get("if"), x, at)) check(schema.get("then"), x, at, out);
        if (x.isObject()) {
            if (schema.has("required"))
                for (JsonNode r : schema.get("required"))
                    if (!x.has(r.asText())) out.add(at + ": required '" + r.asText() + "' is missing");
            JsonNode props = schema.get("properties");
            if (props != null)
                for (Iterator<Map.Entry<String, JsonNode>> it = x.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = it.next();
                    if (props.has(e.getKey())) check(props.get(e.getKey()), e.getValue(), at + "/" + e.getKey(), out);
                }
            if (schema.has("additionalProperties")) {
                if (!schema.get("additionalProperties").isBoolean() || schema.get("additionalProperties").asBoolean())
                    throw new IllegalStateException("additionalProperties other than false at " + at);
                for (Iterator<String> it = x.fieldNames(); it.hasNext(); ) {
                    String k = it.next();
                    if (props == null || !props.has(k)) out.add(at + ": additional property '" + k + "'");
                }
            }
        }
    }

    private boolean matches(JsonNode schema, JsonNode x, String at) {
        List<String> sub = new ArrayList<>();
        check(schema, x, at, sub);
        return sub.isEmpty();
    }

    private static boolean typeOk(JsonNode type, JsonNode x) {
        if (type.isArray()) {
            for (JsonNode t : type) if (typeOk(t, x)) return true;
            return false;
        }
        return switch (type.asText()) {
            case "object" -> x.isObject();
            case "array" -> x.isArray();
            case "string" -> x.isTextual();
            case "boolean" -> x.isBoolean();
            case "null" -> x.isNull();
            case "number" -> x.isNumber();
            // 2020-12: a number with no fractional part is an integer, 2.0 included
            case "integer" -> x.isIntegralNumber() || (x.isNumber() && x.asDouble() == Math.rint(x.asDouble())
                    && !Double.isInfinite(x.asDouble()));
            default -> throw new IllegalStateException("type '" + type.asText() + "' outside the subset");
        };
    }

    private static boolean same(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) return a.decimalValue().compareTo(b.decimalValue()) == 0;
        return a.equals(b);
    }

    private static String kind(JsonNode x) {
        return x.isObject() ? "an object" : x.isArray() ? "an array" : x.isTextual() ? "a string '" + x.asText() + "'"
                : x.isBoolean() ? "a boolean" : x.isNull() ? "null" : x.isNumber() ? "the number " + x : x.getNodeType().toString();
    }
}
