package dev.trainadvisor.pyliteral;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Garbage for the reader: random text over Python's punctuation and random bytes decoded as UTF-8, from a seed. */
public final class RandomSource {
    private RandomSource() {}

    /** {@code pairs} random texts (up to 4,000 characters) each followed by random bytes (up to 3,000) as UTF-8. */
    public static List<String> texts(long seed, int pairs) {
        Random random = new Random(seed);
        String alphabet = "abcXYZ_019 =(),[]{}:.'\"#\\\n\r\t+-*/%<>!fr\u00e9\u4e2d";
        List<String> out = new ArrayList<>();
        for (int i = 0; i < pairs; i++) {
            StringBuilder b = new StringBuilder();
            int n = random.nextInt(4000);
            for (int k = 0; k < n; k++) b.append(alphabet.charAt(random.nextInt(alphabet.length())));
            out.add(b.toString());
            byte[] bytes = new byte[random.nextInt(3000)];
            random.nextBytes(bytes);
            out.add(new String(bytes, StandardCharsets.UTF_8));
        }
        return out;
    }
}
