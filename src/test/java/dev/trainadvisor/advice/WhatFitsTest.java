package dev.trainadvisor.advice;

import dev.trainadvisor.spec.Gpu;
import dev.trainadvisor.spec.Catalog;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.*;

/** Where WhatFits looks for a cluster that holds a run: which node counts, which GPUs. */
class WhatFitsTest {

    @Test
    void nodeCountsStartWhereTheStateCanFitStepOneAtATimeThenGeometrically() {
        // from 1 node, state needing at least 4: 4..19 one at a time, then 4 x 1.5 = 6 and 8, 12 and 16, 24 and 32, 48 and 64
        List<Integer> expected = new java.util.ArrayList<>(IntStream.rangeClosed(4, 19).boxed().toList());
        expected.addAll(List.of(24, 32, 48, 64));
        assertEquals(expected, WhatFits.nodeCounts(1, 4, 64));
        // never the run's own count or fewer
        assertEquals(List.of(3, 4), WhatFits.nodeCounts(2, 1, 4));
        // and nothing beyond the cap
        assertEquals(List.of(), WhatFits.nodeCounts(8, 9, 8));
    }

    @Test
    void largerGpusComeByMemoryThenTheSameArchitectureFirst() {
        Gpu a100 = Catalog.builtIn().gpu("A100-SXM4-40GB", "test", "gpu");
        List<Gpu> larger = WhatFits.largerGpus(a100);
        assertFalse(larger.isEmpty());
        for (int i = 1; i < larger.size(); i++) assertTrue(larger.get(i - 1).hbmGb() <= larger.get(i).hbmGb());
        assertTrue(larger.stream().allMatch(g -> g.hbmGb() > 40));
        // the first of 80 GB is an Ampere part: the node of the same generation before a newer one
        Gpu first80 = larger.stream().filter(g -> g.hbmGb() == 80).findFirst().orElseThrow();
        assertEquals(a100.architecture(), first80.architecture(), first80.key());
    }
}
