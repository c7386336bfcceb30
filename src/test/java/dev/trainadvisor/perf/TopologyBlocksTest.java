package dev.trainadvisor.perf;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Topology's closed forms against counting the ranks one by one. */
class TopologyBlocksTest {
    @Test
    void blocksAndTheMostInOneAreWhatCountingGives() {
        for (int size = 1; size <= 48; size++)
            for (int stride = 1; stride <= 48; stride++)
                for (int width = 1; width <= 48; width++) {
                    int blocks = 0, most = 0, in = 0;
                    long last = -1;
                    for (int i = 0; i < size; i++) {
                        long block = (long) i * stride / width;
                        if (block != last) {
                            blocks++;
                            last = block;
                            in = 0;
                        }
                        most = Math.max(most, ++in);
                    }
                    String where = size + " ranks " + stride + " apart in blocks of " + width;
                    assertEquals(blocks, Topology.blocks(size, stride, width), where);
                    assertEquals(most, Topology.mostInABlock(size, stride, width), where);
                }
        // at the bounds: 2^20 ranks one apart in nodes of 8, and 2^20 apart-by-2^20 (no int overflow)
        assertEquals(1 << 17, Topology.blocks(1 << 20, 1, 8));
        assertEquals(8, Topology.mostInABlock(1 << 20, 1, 8));
        assertEquals(1 << 20, Topology.blocks(1 << 20, 1 << 20, 1 << 20));
        assertEquals(1, Topology.mostInABlock(1 << 20, 1 << 20, (1 << 20) - 1));
    }
}
