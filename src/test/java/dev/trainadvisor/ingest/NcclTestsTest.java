package dev.trainadvisor.ingest;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Each nccl-tests sample of shared/samples/logs, with the values read from it by hand. */
class NcclTestsTest {
    static final Path SAMPLES = Path.of("../shared/samples/logs");

    static NcclTests sample(String name) throws Exception {
        Path p = SAMPLES.resolve(name);
        assumeTrue(Files.exists(p), "shared samples not present");
        return NcclTests.parse(Files.readString(p));
    }

    @Test
    void headerAndOneRowOf8Rtx4090() throws Exception {
        NcclTests t = sample("nccl-tests-1.log");
        assertEquals(8, t.ranks(), "nThread 1 x nGpus 8");
        assertEquals("all_reduce", t.collective());
        assertEquals(1, t.rows().size());
        NcclTests.Row r = t.rows().get(0);
        assertEquals(8, r.sizeBytes());
        assertEquals(42.56, r.outTimeUs());
        assertEquals(0.0, r.outBusbwGbps());
        assertTrue(Double.isNaN(r.inBusbwGbps()), "the excerpt is cut after the out-of-place columns");
    }

    @Test
    void fourRtx4090WithP2p() throws Exception {
        NcclTests t = sample("nccl-tests-2.log");
        assertEquals(4, t.ranks());
        assertEquals("all_reduce", t.collective());
        assertEquals(3, t.rows().size());
        assertEquals(1073741824L, t.rows().get(2).sizeBytes());
        assertEquals(25.95, t.busbwAtLargestGbps());     // 1 GiB row: 25.95 out-of-place and in-place
        assertEquals(25.95, t.peakBusbwGbps());
    }

    @Test
    void rcclBroadcastWithRootColumnAndFooter() throws Exception {
        NcclTests t = sample("nccl-tests-3.log");
        assertEquals("broadcast", t.collective());
        assertEquals(10, t.rows().size());
        assertEquals(262144L, t.rows().get(0).sizeBytes());
        assertEquals(43.00, t.rows().get(0).outTimeUs(), "root column 0 skipped, time read");
        assertEquals(18781, t.rows().get(9).outTimeUs(), "a time printed without decimals");
        assertEquals(7.16, t.busbwAtLargestGbps());      // 128 MiB: 7.15 out-of-place, 7.16 in-place
        assertEquals(7.18, t.peakBusbwGbps());           // 64 MiB in-place
        assertEquals(3.41227, t.avgBusbwGbps());
    }

    @Test
    void mscclppRowsCutAt32k() throws Exception {
        NcclTests t = sample("nccl-tests-4.log");
        assertEquals(6, t.rows().size());
        assertEquals(32768L, t.rows().get(5).sizeBytes());
        assertEquals(7.76, t.busbwAtLargestGbps());      // 7.70 out-of-place, 7.76 in-place
    }

    @Test
    void oldestFormatWithoutRedopOrRoot() throws Exception {
        NcclTests t = sample("nccl-tests-5.log");
        assertEquals(13, t.rows().size());
        NcclTests.Row first = t.rows().get(0);
        assertEquals(32768L, first.sizeBytes());
        assertEquals(13.39, first.outTimeUs());
        assertEquals(1.22, first.outBusbwGbps());
        assertEquals(1.38, first.inBusbwGbps());
        assertEquals(21.86, t.busbwAtLargestGbps());     // 128 MiB: 20.34 out-of-place, 21.86 in-place
        assertEquals(21.86, t.peakBusbwGbps());
    }

    @Test
    void format2021WithRedopButNoRoot() throws Exception {
        NcclTests t = sample("nccl-tests-6.log");
        assertEquals(8, t.rows().size());
        assertEquals(163.7, t.rows().get(0).outTimeUs());
        assertEquals(8192L, t.rows().get(7).sizeBytes());
        assertEquals(0.08, t.busbwAtLargestGbps());
    }

    @Test
    void launcherPrefixesAndColoursAreStripped() {
        String text = "[1,0]<stdout>:   268435456      67108864     float     sum      -1    15654   17.15   25.72      0    15658   17.14   25.72      0\n"
                + "\u001B[32m0: 536870912 134217728 float sum -1 31194 17.21 25.82 0 31183 17.22 25.83 0\u001B[0m\n";
        NcclTests t = NcclTests.parse(text);
        assertEquals(2, t.rows().size());
        assertEquals(25.83, t.busbwAtLargestGbps());
    }

    @Test
    void garbageNeverThrowsAndYieldsNoRows() {
        Random random = new Random(42);
        for (int i = 0; i < 200; i++) {
            byte[] bytes = new byte[random.nextInt(2000)];
            random.nextBytes(bytes);
            NcclTests t = NcclTests.parse(new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1));
            assertNotNull(t);
        }
        assertTrue(NcclTests.parse("no table here\n12 34\n").rows().isEmpty());
    }

    @Test
    void anAbsurdRankCountInTheHeaderIsUnknownNotAnError() {
        NcclTests t = NcclTests.parse("# nThread 1 nGpus 825610241024 minBytes 8\n 8 2 float sum -1 42.56 0.00 0.00 0\n");
        assertEquals(0, t.ranks());
        assertEquals(1, t.rows().size());
    }
}
