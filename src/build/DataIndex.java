import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Writes the index of the data files the jar ships (knowledge-base/, model/, rules/), one path a line, sorted, to
 * META-INF/train-advisor/data-files.txt under the classes folder given (the pom runs it at process-classes, as a source
 * file: `java src/build/DataIndex.java target/classes`). dev.trainadvisor.spec.Resources lists a folder of the jar
 * from it rather than from the jar's directory of some 10,000 classes (bench/coldstart.sh).
 */
public class DataIndex {
    public static void main(String[] args) throws IOException {
        Path classes = Path.of(args[0]);
        StringBuilder out = new StringBuilder();
        for (String top : List.of("knowledge-base", "model", "rules")) {
            Path dir = classes.resolve(top);
            if (!Files.isDirectory(dir)) continue;
            try (Stream<Path> files = Files.walk(dir)) {
                for (String f : files.filter(Files::isRegularFile)
                        .map(p -> classes.relativize(p).toString().replace('\\', '/')).sorted().toList())
                    out.append(f).append('\n');
            }
        }
        Path index = classes.resolve("META-INF/train-advisor/data-files.txt");
        Files.createDirectories(index.getParent());
        Files.writeString(index, out.toString(), StandardCharsets.UTF_8);
    }
}
