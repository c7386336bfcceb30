package dev.trainadvisor.spec;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import dev.trainadvisor.input.Excerpt;
import dev.trainadvisor.input.SpecException;

import java.io.IOException;

/**
 * YAML aliases ({@code *name}, standing for what an anchor {@code &name} marks) are refused: Jackson's tree reads an
 * alias as the anchor's name, so {@code name: &internlm-7b bogus} and {@code model: *internlm-7b} would advise the
 * preset internlm-7b and say nothing. An anchor alone is harmless (its value is read) and is allowed.
 */
final class YamlAliases {
    private YamlAliases() {}

    /** Refuses the first alias in {@code text}, naming its field, line and name. */
    static void refuse(ObjectMapper yaml, String text, String file) {
        try (JsonParser p = yaml.getFactory().createParser(text)) {
            for (JsonToken t; (t = p.nextToken()) != null; ) {
                if (t != JsonToken.FIELD_NAME && p instanceof YAMLParser y && y.isCurrentAlias())
                    throw new SpecException(file, SpecReader.fieldAt(p), "a value written out, not a YAML alias: *" + Excerpt.of(p.getText(), 60)
                            + " at line " + p.currentTokenLocation().getLineNr() + " stands for what its anchor marks, which "
                            + "train-advisor does not resolve (Jackson would read the anchor's name instead); write the value "
                            + "out where the alias is");
            }
        } catch (IOException e) {
            // the tree was read from the same text: nothing new to report
        }
    }
}
