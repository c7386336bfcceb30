package dev.trainadvisor.perf;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainadvisor.spec.Cluster;
import dev.trainadvisor.spec.Parallel;
import dev.trainadvisor.spec.RunSpec;
import dev.trainadvisor.input.SpecException;
import dev.trainadvisor.spec.SpecReader;
import dev.trainadvisor.spec.SpecWriter;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Rack-scale NVLink (issue 9, item 4): a GB200 NVL72 rack joins 18 trays of 4 GPUs by one NVLink fabric
 * (cluster.nvlink_domain 72), so groups inside the rack run on NVLink across trays and only groups that span racks use
 * the network, whose NICs each tray's GPUs share.
 */
class NvlinkDomainTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The preset with {@code racks} racks, tp 8 and the rest data parallel. */
    static RunSpec nvl72(int racks, Integer domain) {
        ObjectNode t = JSON.createObjectNode();
        ObjectNode c = t.putObject("cluster").put("preset", "gb200-nvl72").put("nodes", 18 * racks);
        if (domain != null) c.put("nvlink_domain", domain);
        t.put("model", "llama-3-70b");
        t.putObject("parallel").put("tp", 8).put("zero_stage", 1);
        t.putObject("training").put("seq_len", 8192).put("micro_batch_size", 1).put("micro_batches", 8);
        return new SpecReader().read(t, "nvl72");
    }

    @Test
    void thePresetIsOneRackOfTraysOfFour() {
        Cluster c = nvl72(1, null).cluster();
        assertEquals(72, c.gpus());
        assertEquals(4, c.gpusPerNode());
        assertEquals(72, c.nvlinkDomain());
        assertEquals("NVLink5", c.intraNode().key());
    }

    /**
     * Tensor parallelism 8 over trays of 4: inside the rack it runs on NVLink5 at the catalogue's bus bandwidth
     * (830 GB/s, the full rack measured 835-847); were the tray the NVLink domain, the same group would cross trays over
     * the network: 4 NDR NICs per tray at 400 Gb/s x the catalogue efficiency, shared by the tray's 4 members.
     */
    @Test
    void tensorParallelismSpansTraysOnNvlinkInsideTheRack() {
        RunSpec rack = nvl72(1, null), trays = nvl72(1, 4);
        Parallel p = rack.run().parallel();
        LinkChoice inRack = new Topology(rack.cluster(), p, dev.trainadvisor.spec.RankOrder.PIPELINE_OUTERMOST).place(p.tp(), 1);
        assertEquals("NVLink5", inRack.linkKey());
        assertEquals(rack.cluster().intraNode().busbwGbps(), inRack.busbwGbps(), 0);
        assertFalse(inRack.crossesNodes());
        LinkChoice overTrays = new Topology(trays.cluster(), p, dev.trainadvisor.spec.RankOrder.PIPELINE_OUTERMOST).place(p.tp(), 1);
        assertEquals("IB-NDR", overTrays.linkKey());
        assertEquals(trays.cluster().interNode().nodeGbps() * 4 / 4, overTrays.busbwGbps(), 1e-9);
        assertTrue(overTrays.crossesNodes());
        // the step model follows: 830 GB/s against the tray's 4 NICs x 50 GB/s x 0.94 (networks.json) = 188 GB/s
        double rackTp = tp(StepModel.predict(rack.cluster(), rack.run())), traysTp = tp(StepModel.predict(trays.cluster(), trays.run()));
        assertEquals(188, trays.cluster().interNode().nodeGbps(), 1e-9);
        assertTrue(rackTp * 4 < traysTp && traysTp < rackTp * 830 / 188, rackTp + " vs " + traysTp);
    }

    private static double tp(StepPrediction p) {
        return p.collectives().stream().filter(c -> c.group() == ProcessGroup.TP).mapToDouble(Collective::seconds).sum();
    }

    /**
     * Two racks, tp 8: the data-parallel group of rank 0 (ranks 0, 8, ..., 136) has nine members in each rack and one
     * in every other tray, so the four GPUs of a tray belong to four groups that cross racks at once and share its NICs:
     * a quarter of the tray's network bandwidth each, far below NVLink between the members inside a rack.
     */
    @Test
    void dataParallelismAcrossRacksUsesTheNetwork() {
        RunSpec two = nvl72(2, null);
        Parallel p = two.run().parallel();
        assertEquals(18, p.dp());
        Topology topo = new Topology(two.cluster(), p, dev.trainadvisor.spec.RankOrder.PIPELINE_OUTERMOST);
        LinkChoice dp = topo.place(p.dp(), topo.dpStride());
        assertEquals("IB-NDR", dp.linkKey());
        assertEquals(2, dp.nodesSpanned(), "two NVLink domains");
        assertEquals(9, dp.membersPerNode(), "nine members in each rack");
        assertEquals(two.cluster().interNode().nodeGbps() / 4, dp.busbwGbps(), 1e-9);
    }

    /** Written back, the run file keeps its domain; a domain that splits a node, or PCIe across nodes, is refused. */
    @Test
    void theDomainIsReadWrittenAndChecked() {
        RunSpec rack = nvl72(1, null);
        assertEquals(72, new SpecReader().read(SpecWriter.write(rack.cluster(), rack.run()), "again").cluster().nvlinkDomain());
        SpecException split = assertThrows(SpecException.class, () -> nvl72(1, 6));
        assertTrue(split.getMessage().contains("nvlink_domain") && split.getMessage().contains("multiple of gpus_per_node"),
                split.getMessage());
        ObjectNode t = JSON.createObjectNode();
        t.putObject("cluster").put("gpu", "A100-PCIe-80GB").put("nodes", 2).put("gpus_per_node", 8).put("nvlink_domain", 16)
                .putObject("intra_node").put("link", "PCIe4");
        ((ObjectNode) t.get("cluster")).putObject("inter_node").put("link", "IB-HDR");
        t.put("model", "llama-2-7b");
        t.putObject("training").put("seq_len", 4096).put("micro_batch_size", 1);
        SpecException pcie = assertThrows(SpecException.class, () -> new SpecReader().read(t, "pcie"));
        assertTrue(pcie.getMessage().contains("nvlink_domain") && pcie.getMessage().contains("PCIe4"), pcie.getMessage());
    }
}
