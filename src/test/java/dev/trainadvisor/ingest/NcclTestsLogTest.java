package dev.trainadvisor.ingest;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** The nccl-tests adapter: busbw at the largest size and the peak, values read by hand from each sample. */
class NcclTestsLogTest {
    final NcclTestsLog parser = new NcclTestsLog();

    private ParsedLog sample(String name) {
        ParsedLog p = Samples.parse(parser, name);
        assertEquals(0, p.steps());
        assertTrue(p.metrics().isEmpty());
        return p;
    }

    @Test
    void nccl1HeaderAndOneRow() {
        ParsedLog p = sample("nccl-tests-1.log");
        // one 8-byte row: busbw 0.00 (out-of-place only, the excerpt is cut)
        assertEquals(0.0, p.extra().get("busbw_gbps"));
        assertEquals(0.0, p.extra().get("peak_busbw_gbps"));
        assertEquals(8, p.extra().get("ranks"), "nThread 1 nGpus 8");
        assertEquals("all_reduce", p.extra().get("collective"));
    }

    @Test
    void nccl2FourGpusP2p() {
        ParsedLog p = sample("nccl-tests-2.log");
        assertEquals(25.95, p.extra().get("busbw_gbps"), "1 GiB row: 25.95 / 25.95");
        assertEquals(25.95, p.extra().get("peak_busbw_gbps"));
        assertEquals(1073741824L, p.extra().get("largest_size_bytes"));
        assertEquals(4, p.extra().get("ranks"));
    }

    @Test
    void nccl3RcclBroadcastWithFooter() {
        ParsedLog p = sample("nccl-tests-3.log");
        assertEquals(7.16, p.extra().get("busbw_gbps"), "128 MiB: 7.15 out-of-place, 7.16 in-place");
        assertEquals(7.18, p.extra().get("peak_busbw_gbps"), "64 MiB in-place");
        assertEquals(3.41227, p.extra().get("avg_busbw_gbps"));
        assertEquals("broadcast", p.extra().get("collective"));
    }

    @Test
    void nccl4To6() {
        assertEquals(7.76, sample("nccl-tests-4.log").extra().get("busbw_gbps"), "32 KiB: 7.70 / 7.76");
        ParsedLog five = sample("nccl-tests-5.log");
        assertEquals(21.86, five.extra().get("busbw_gbps"), "128 MiB: 20.34 / 21.86");
        assertEquals(21.86, five.extra().get("peak_busbw_gbps"));
        ParsedLog six = sample("nccl-tests-6.log");
        assertEquals(0.08, six.extra().get("busbw_gbps"), "8 KiB: 0.08 / 0.08");
        assertEquals(0.08, six.extra().get("peak_busbw_gbps"));
    }

    @Test
    void noTable() {
        assertEquals(0.0, parser.confidence("hello\n"));
        assertFalse(parser.parse("hello\n").extra().containsKey("busbw_gbps"));
    }
}
