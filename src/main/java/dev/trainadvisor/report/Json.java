package dev.trainadvisor.report;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import dev.trainadvisor.advice.Advice;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.List;

/**
 * Advice as JSON (docs/advice-json.md): snake_case keys, numbers to 6 significant digits,
 * NaN as null, "\n" line ends, so the same input gives the same bytes.
 */
public final class Json {
    static final ObjectMapper MAPPER = mapper();

    private Json() {}

    static ObjectMapper mapper() {
        SimpleModule numbers = new SimpleModule("numbers");
        JsonSerializer<Double> round = new JsonSerializer<>() {
            @Override
            public void serialize(Double v, JsonGenerator g, SerializerProvider p) throws IOException {
                if (v == null || v.isNaN() || v.isInfinite()) g.writeNull();
                else if (v == Math.rint(v) && Math.abs(v) < 1e15) g.writeNumber(v.longValue());
                else g.writeNumber(new BigDecimal(v).round(new MathContext(6)).stripTrailingZeros());
            }
        };
        numbers.addSerializer(Double.class, round);
        numbers.addSerializer(double.class, round);
        numbers.addSerializer(double[].class, new JsonSerializer<>() {
            @Override
            public void serialize(double[] v, JsonGenerator g, SerializerProvider p) throws IOException {
                g.writeStartArray();
                for (double x : v) round.serialize(x, g, p);
                g.writeEndArray();
            }
        });
        DefaultPrettyPrinter pp = new DefaultPrettyPrinter().withObjectIndenter(new DefaultIndenter("  ", "\n"));
        return new ObjectMapper()
                .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .registerModule(numbers)
                .enable(SerializationFeature.INDENT_OUTPUT)
                .setDefaultPrettyPrinter(pp);
    }

    public static String of(Advice advice) { return write(AdviceView.of(advice)); }

    /**
     * Builds the serializers of the advice's JSON ahead of use (Jackson introspects each record of AdviceView the first
     * time; a sixth of a cold `advise`), for the command line to do on a second core. The bytes written are the same.
     * Every record the view holds is prepared, not only the view: Jackson resolves the serializer of a list's elements,
     * and of what a record holds through a list, when it first writes one, which left 6% of a cold advise's CPU to the
     * end of its main thread (JFR, bench/coldstart.sh), when nothing else runs beside it.
     */
    public static void prepare() {
        List<Class<?>> records = records(AdviceView.class);
        for (Class<?> c : records) MAPPER.writerFor(c);
        // a list or map is written by a serializer found for the class met and the declared element types (the JDK's
        // List12<Claim>, ListN<Claim>, ...), made the first time each is met: made here for each the view declares
        SerializerProvider provider = MAPPER.getSerializerProviderInstance();
        com.fasterxml.jackson.databind.type.TypeFactory types = MAPPER.getTypeFactory();
        try {
            for (Class<?> c : records)
                for (java.lang.reflect.RecordComponent rc : c.getRecordComponents()) {
                    com.fasterxml.jackson.databind.JavaType declared = types.constructType(rc.getGenericType());
                    if (declared.isCollectionLikeType() || declared.isMapLikeType())
                        for (Class<?> met : declared.isMapLikeType() ? MAPS : LISTS)
                            provider.findValueSerializer(types.constructSpecializedType(declared, met));
                }
            writer().writeValue(java.io.Writer.nullWriter(), runtimeSamples());
            provider.findTypedValueSerializer(AdviceView.class, true, null);   // the root, as write finds it
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The classes of the JDK's lists and maps the view's may be: of List.of, stream().toList(), new ArrayList, ... */
    private static final List<Class<?>> LISTS = List.of(List.of().getClass(), List.of(1).getClass(),
            java.util.ArrayList.class, java.util.Collections.unmodifiableList(new java.util.ArrayList<>()).getClass(),
            java.util.Arrays.asList().getClass());
    private static final List<Class<?>> MAPS = List.of(java.util.Map.of().getClass(), java.util.Map.of(1, 1).getClass(),
            java.util.LinkedHashMap.class, java.util.HashMap.class, java.util.TreeMap.class,
            java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>()).getClass());

    /**
     * A value of each class the view holds behind a declared type that is not final (Object, JsonNode): boxed values,
     * a JSON object. Jackson finds a serializer for those by the class it meets, introspecting the class the first time
     * (with the lists above, two thirds of what was left of writing the advice in a cold advise, JFR).
     */
    static List<Object> runtimeSamples() {
        java.util.Map<String, Object> values = new java.util.LinkedHashMap<>();
        values.put("string", "x");
        values.put("int", 1);
        values.put("long", 1L);
        values.put("double", 1.5);
        values.put("boolean", true);
        return List.of(List.of(), List.of(1), List.of(1, 2, 3),
                java.util.Arrays.asList(1, 2), new java.util.ArrayList<>(List.of(1)),
                java.util.Collections.unmodifiableList(new java.util.ArrayList<>(List.of(1))),
                java.util.Map.of(), java.util.Map.of("a", 1), values, java.util.Collections.unmodifiableMap(values),
                MAPPER.createObjectNode().put("a", 1));
    }

    /** {@code root} and every record class its components hold, directly or in lists, maps and arrays; in order met. */
    static List<Class<?>> records(Class<?> root) {
        List<Class<?>> out = new java.util.ArrayList<>();
        java.util.ArrayDeque<java.lang.reflect.Type> todo = new java.util.ArrayDeque<>(List.of(root));
        while (!todo.isEmpty()) {
            java.lang.reflect.Type t = todo.removeFirst();
            if (t instanceof java.lang.reflect.ParameterizedType p) {
                todo.addAll(List.of(p.getActualTypeArguments()));
            } else if (t instanceof Class<?> c && c.isArray()) {
                todo.add(c.getComponentType());
            } else if (t instanceof Class<?> c && c.isRecord() && !out.contains(c)) {
                out.add(c);
                for (java.lang.reflect.RecordComponent rc : c.getRecordComponents()) todo.add(rc.getGenericType());
            }
        }
        return out;
    }

    public static String of(List<Advice> advice) { return write(advice.stream().map(AdviceView::of).toList()); }

    /** Any other report made of records (validation), in the same style. */
    public static String of(Record report) { return write(report); }

    private static String write(Object o) {
        try {
            return writer().writeValueAsString(o) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write advice as JSON", e);
        }
    }

    private static com.fasterxml.jackson.databind.ObjectWriter writer() {
        return MAPPER.writer(new DefaultPrettyPrinter().withObjectIndenter(new DefaultIndenter("  ", "\n"))
                .withArrayIndenter(new DefaultIndenter("  ", "\n")));
    }

    /**
     * {@link #of(List)} written one advice at a time, the same bytes: a batch holds one run's advice at a time, not the
     * fleet's. Each element is written on its own ({@link #element}, on any thread: a batch writes it on the thread that
     * advised the run) and placed as the pretty printer places an array's values: each on a line of its own after "["
     * or ",", one level deeper (each of its line breaks followed by the array's indent, two spaces: a string's line
     * breaks are escaped, so every line break in it is the printer's), the array closed on a line of its own, or "[ ]"
     * when empty. FleetStreamTest holds it to {@link #of(List)}.
     */
    static final class ArrayStream {
        private static final String INDENT = "  ";
        /** The writer of {@link #of(List)}, made once: immutable, so the advising threads share it. */
        private static final com.fasterxml.jackson.databind.ObjectWriter WRITER = writer();
        private final java.io.Writer out;
        private int elements;

        ArrayStream(java.io.Writer out) throws IOException {
            this.out = out;
            out.write('[');
        }

        /** {@code a} as an element of the array. */
        static String element(AdviceView a) {
            try {
                return WRITER.writeValueAsString(a).replace("\n", "\n" + INDENT);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("cannot write advice as JSON", e);
            }
        }

        /** The next element, as {@link #element} wrote it. */
        void addElement(String element) throws IOException {
            out.write(elements++ == 0 ? "\n" + INDENT : ",\n" + INDENT);
            out.write(element);
        }

        void end() throws IOException { out.write(elements == 0 ? " ]\n" : "\n]\n"); }
    }
}
