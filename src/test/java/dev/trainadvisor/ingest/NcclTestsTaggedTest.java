package dev.trainadvisor.ingest;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/**
 * nccl-tests printed through {@code mpirun --tag-output} (docs/logs.md (Formats)): each piece of output tagged
 * where it starts, also in the middle of a row printed in pieces. Before, the tag glued to the root column
 * ({@code -1[1,0]<stdout>:}) hid it, the columns shifted by one and the algbw was read as the busbw (17.30 for 25.95
 * here). The log (src/test/resources/logs/nccl-tests-tagged.log) is shared/samples/logs/nccl-tests-2.log so tagged.
 */
class NcclTestsTaggedTest {
    static final Path LOG = Samples.resource("nccl-tests-tagged.log");

    @Test
    void tagsInTheMiddleOfRowsAreDropped() throws Exception {
        ParsedLog p = LogFormats.read(LOG);
        assertEquals("nccl-tests", p.format());
        // nccl-tests-2.log, 1 GiB row: algbw 17.30, busbw 25.95 out-of-place and in-place
        assertEquals(25.95, p.extra().get("busbw_gbps"));
        assertEquals(25.95, p.extra().get("peak_busbw_gbps"));
        assertEquals(1073741824L, p.extra().get("largest_size_bytes"));
        assertEquals(4, p.extra().get("ranks"));
        NcclTests t = NcclTests.read(LOG);
        assertEquals(3, t.rows().size());
        NcclTests.Row r = t.rows().get(0);
        // 268435456  67108864  float  sum  -1 | 15654 17.15 25.72 0 | 15658 17.14 25.72 0
        assertEquals(15654, r.outTimeUs());
        assertEquals(17.15, r.outAlgbwGbps());
        assertEquals(25.72, r.outBusbwGbps());
        assertEquals(15658, r.inTimeUs());
        assertEquals(17.14, r.inAlgbwGbps());
        assertEquals(NcclTests.parse(Files.readString(Samples.DIR.resolve("nccl-tests-2.log"))), t,
                "the same table as the untagged sample");
    }

    @Test
    void shortTagsAndARowSplitOverTwoLines() {
        // the [rank] tags of other launchers; the first row's numbers went to a line of their own
        String log = """
                [0]#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
                [0]   268435456      67108864     float     sum      -1
                [0]    15654   17.15   25.72      0    15658   17.14   25.72      0
                [0]   536870912     134217728     float     sum      -1[0]    31194   17.21   25.82      0[0]    31183   17.22   25.83      0
                [0]  1073741824     268435456     float     sum      -1 [0]    62077   17.30   25.95      0 [0]    62057   17.30   25.95      0
                """;
        NcclTests t = NcclTests.parse(log);
        assertEquals(3, t.rows().size());
        assertEquals(25.72, t.rows().get(0).outBusbwGbps());
        assertEquals(25.83, t.rows().get(1).inBusbwGbps());
        assertEquals(25.95, t.busbwAtLargestGbps());
    }

    @Test
    void deviceAddressesAreNotTags() {
        assertEquals("#  Rank  0 Group  0 Pid  28307 on      gpu59 device  0 [0x16] NVIDIA GeForce RTX 4090",
                NcclTests.untag("#  Rank  0 Group  0 Pid  28307 on      gpu59 device  0 [0x16] NVIDIA GeForce RTX 4090"));
        assertEquals("device  0 [0000:85:00] NVIDIA", NcclTests.untag("device  0 [0000:85:00] NVIDIA"));
        assertEquals("-1     15654", NcclTests.untag("-1[1,0]<stdout>:    15654"));
        assertEquals("a b", NcclTests.untag("a[12]b"));
    }
}
