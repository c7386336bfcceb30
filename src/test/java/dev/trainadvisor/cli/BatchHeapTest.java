package dev.trainadvisor.cli;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * When a batch collects its heap by hand (BatchCommand.HeapBound): on the JVM's default heap (a quarter of the machine,
 * 6 GB on this 24 GB one) once more than 512 MB is committed, so that `java -jar ... batch` stays under issue 23's
 * 1 GB resident; never where the JVM was given a heap of at most 768 MB (bin/train-advisor's -Xmx768m for batch),
 * which the JVM itself holds under that bound.
 */
class BatchHeapTest {
    private static final long MB = 1L << 20;

    @Test
    void theDefaultHeapIsCollectedByHandPast512MbCommitted() {
        assertTrue(BatchCommand.collectByHand(6 * 1024 * MB, 513 * MB, BatchCommand.HEAP_BOUND));
        assertFalse(BatchCommand.collectByHand(6 * 1024 * MB, 512 * MB, BatchCommand.HEAP_BOUND));
        assertFalse(BatchCommand.collectByHand(6 * 1024 * MB, 380 * MB, BatchCommand.HEAP_BOUND));
    }

    /**
     * After a collection by hand the next waits for the heap to grow by half the bound past what the collection left:
     * a heap given back (G1's, to a few hundred MB) is collected again at 512 MB as before; one that stays large (a
     * million runs' items and lines, or a collector that does not shrink the heap) is not collected after every run.
     */
    @Test
    void aHeapThatStaysLargeIsCollectedOnlyAsItGrows() {
        assertEquals(512 * MB, BatchCommand.nextBound(150 * MB), "given back: the bound again");
        assertEquals(512 * MB, BatchCommand.nextBound(256 * MB));
        assertEquals(956 * MB, BatchCommand.nextBound(700 * MB), "700 MB left: 256 MB more");
        long bound = BatchCommand.nextBound(700 * MB);
        assertFalse(BatchCommand.collectByHand(6 * 1024 * MB, 701 * MB, bound), "not again at once");
        assertFalse(BatchCommand.collectByHand(6 * 1024 * MB, 956 * MB, bound));
        assertTrue(BatchCommand.collectByHand(6 * 1024 * MB, 957 * MB, bound));
        assertFalse(BatchCommand.collectByHand(768 * MB, 957 * MB, bound), "a bounded heap: never by hand");
    }

    @Test
    void aHeapTheLauncherBoundsIsLeftToTheJvm() {
        // -Xmx768m: the parallel collector reports a little less (one survivor space), G1 exactly 768 MB
        assertFalse(BatchCommand.collectByHand(768 * MB, 700 * MB, BatchCommand.HEAP_BOUND));
        assertFalse(BatchCommand.collectByHand(745 * MB, 700 * MB, BatchCommand.HEAP_BOUND));
        assertTrue(BatchCommand.collectByHand(769 * MB, 700 * MB, BatchCommand.HEAP_BOUND));
    }

    @Test
    void theLaunchersBatchHeapIsOneTheBatchLeavesToTheJvm() throws java.io.IOException {
        String launcher = java.nio.file.Files.readString(java.nio.file.Path.of("bin/train-advisor"));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^\\s*batch\\)[^\\n]*-Xmx(\\d+)m").matcher(launcher);
        assertTrue(m.find(), "bin/train-advisor gives batch a heap bound (-Xmx...m)");
        long xmx = Long.parseLong(m.group(1)) * MB;
        // a launcher heap above BOUNDED_HEAP would bring back the collections by hand the bound is there to spare
        assertFalse(BatchCommand.collectByHand(xmx, xmx, BatchCommand.HEAP_BOUND));
    }
}
