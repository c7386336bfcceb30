package dev.trainadvisor.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.advice.Advice;
import dev.trainadvisor.advice.TrainAdvisor;
import dev.trainadvisor.engine.RuleEngine;
import dev.trainadvisor.spec.ReferenceRun;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.spec.SpecReader;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fleet table's row read off the advice itself (what a CSV batch writes) is the row of the advice's view (what the
 * markdown and HTML reports show), value for value: over the examples, the test run files and every published
 * reference run, each also with a step count logged (a total rather than a rate), with its throughput a hundred times
 * what it measured (implausible), and without its measurements (unmeasured), so that every standing, cause and remedy
 * a row can carry is read both ways.
 */
class BatchTableTest {

    @Test
    void aRowReadOffTheAdviceIsTheRowOfItsView() throws IOException {
        TrainAdvisor advisor = new TrainAdvisor(RuleEngine.builtIn()).withoutLayoutSearch();
        SpecReader reader = new SpecReader();
        List<Advice> advice = new ArrayList<>();
        List<String> files = new ArrayList<>();
        List<Path> runFiles = new ArrayList<>();
        try (Stream<Path> s = Files.list(Path.of("examples"))) {
            s.filter(f -> f.toString().endsWith(".yaml")).sorted().forEach(runFiles::add);
        }
        try (Stream<Path> s = Files.list(Path.of("src/test/resources/runs"))) {
            s.filter(f -> f.toString().endsWith(".yaml")).sorted().forEach(runFiles::add);
        }
        for (Path f : runFiles) {
            JsonNode tree = SpecReader.parse(f);
            for (String variant : List.of("as written", "steps", "implausible", "unmeasured")) {
                ObjectNode t = (ObjectNode) tree.deepCopy();
                if (!variant.equals("as written") && !(t.get("metrics") instanceof ObjectNode)) continue;
                switch (variant) {
                    case "steps" -> ((ObjectNode) t.get("metrics")).put("steps", 1000);
                    case "implausible" -> {
                        ObjectNode m = (ObjectNode) t.get("metrics");
                        if (!m.has("tokens_per_gpu_per_s")) continue;
                        m.put("tokens_per_gpu_per_s", 100 * m.get("tokens_per_gpu_per_s").asDouble());
                        m.remove("tflops_per_gpu");
                    }
                    case "unmeasured" -> t.remove("metrics");
                    default -> { }
                }
                RunSpec spec = reader.read(t, f.toString());
                advice.add(advisor.adviseRun(spec.cluster(), spec.run()));
                files.add(f.getFileName() + " " + variant);
            }
        }
        for (ReferenceRun r : ReferenceRun.builtIn()) {
            if (r.isExcluded()) continue;
            advice.add(advisor.adviseRun(r.spec().cluster(), r.spec().run()));
            files.add("reference-runs.json#" + r.id());
        }
        Map<BatchTable.Standing, Integer> standings = new EnumMap<>(BatchTable.Standing.class);
        int causes = 0, remedies = 0;
        for (int i = 0; i < advice.size(); i++) {
            BatchTable.Row fromView = BatchTable.row(AdviceView.of(advice.get(i)), files.get(i));
            BatchTable.Row fromAdvice = BatchTable.row(advice.get(i), files.get(i));
            assertEquals(fromView, fromAdvice, files.get(i));
            standings.merge(fromView.standing(), 1, Integer::sum);
            if (!fromView.topCause().isEmpty()) causes++;
            if (!fromView.bestRemedy().isEmpty()) remedies++;
        }
        // every branch of the row was read both ways
        for (BatchTable.Standing s : BatchTable.Standing.values())
            assertTrue(standings.getOrDefault(s, 0) > 0, s + " among " + standings);
        assertTrue(causes > 50 && remedies > 50, causes + " rows with a cause, " + remedies + " with a remedy");
    }
}
