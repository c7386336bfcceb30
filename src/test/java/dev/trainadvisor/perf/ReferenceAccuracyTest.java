package dev.trainadvisor.perf;

import dev.trainadvisor.spec.ReferenceRun;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The model against the published runs of knowledge-base/reference-runs (docs/model.md, "Calibration"): the accuracy
 * target of 10% mean absolute error of tokens/GPU/s overall, on the tune rows and on the held-out ones, and no
 * source group over 20% on either. The targets were set on the source groups of issue 9 ({@link #ISSUE_9}); the
 * families issue 21 added are there to show where the model stands on sources it never saw (validate --leave-out
 * source, LeaveOneSourceOutTest), and two of them miss by more (OLMo-core +20%, llm.c -15%: docs/model.md, "Calibration").
 */
class ReferenceAccuracyTest {

    /** The source groups the issue-9 targets were set on. */
    static final java.util.Set<String> ISSUE_9 = java.util.Set.of("BLOOM (BigScience)", "Consumer GPUs (RTX 3090/4090)",
            "DeepSpeed ZeRO++ tutorial", "InternLM-issue", "llm-foundry", "Megatron-Core MoE (H100)",
            "Megatron-LM (H100 2024)", "Megatron-LM (Korthikanti 2022)", "Megatron-LM (Narayanan 2021)", "NeMo 24.07",
            "NeMo long-sequence (CP)", "torchtitan");

    static final Validation.Report REPORT = Validation.of(ReferenceRun.builtIn().stream()
            .filter(r -> ISSUE_9.contains(r.sourceGroup())).toList());

    static Map<String, Validation.Summary> bySplit(String group) {
        Map<String, Validation.Summary> m = new HashMap<>();
        for (Validation.Summary s : REPORT.summaries()) if (s.group().equals(group)) m.put(s.split(), s);
        return m;
    }

    @Test
    void overallErrorIsAtMostTenPercentOnTuneAndHoldout() {
        Map<String, Validation.Summary> overall = bySplit("overall");
        assertTrue(overall.get("tune").rows() >= 150 && overall.get("holdout").rows() >= 75, "all rows are validated");
        assertTrue(overall.get("tune").tokensMape() <= 0.10, "tune MAPE " + overall.get("tune").tokensMape());
        assertTrue(overall.get("holdout").tokensMape() <= 0.10, "holdout MAPE " + overall.get("holdout").tokensMape());
    }

    @Test
    void noSourceGroupIsOverTwentyPercent() {
        int groups = 0;
        for (Validation.Summary s : REPORT.summaries()) {
            if (s.group().equals("overall") || s.rows() == 0) continue;
            groups++;
            assertTrue(s.tokensMape() <= 0.20, s.group() + " " + s.split() + ": " + s.tokensMape());
        }
        assertTrue(groups >= 20, "every group has tune, holdout and all summaries: " + groups);
        assertEquals(ISSUE_9.size(), REPORT.summaries().stream().map(Validation.Summary::group).filter(ISSUE_9::contains)
                .distinct().count(), "every issue-9 group is still there");
    }

    /**
     * The motivating case's three runs (held out) within 5%, as InternLM's own code ran them (internevo.json, 2023):
     * -4.1% and -0.6% on PCIe, +0.1% on NVLink when written (issue 17), where the reduce-scatter and all-gather the
     * model priced before needed fp32 gradients as a stand-in and missed the NVLink run by +5%.
     */
    @Test
    void theMotivatingCaseIsWithinFivePercent() {
        int rows = 0;
        for (Validation.Row r : REPORT.rows())
            if (r.sourceGroup().equals("InternLM-issue")) {
                rows++;
                double limit = 0.05;
                assertTrue(Math.abs(r.tokensError()) <= limit, r.id() + ": " + r.tokensError());
            }
        assertEquals(3, rows);
    }

    /** Issue 9's target: 7% overall on tune and on holdout, every source group within 15% on either. */
    @Test
    void everyGroupIsWithinFifteenPercentAndTheWholeWithinSeven() {
        Map<String, Validation.Summary> overall = bySplit("overall");
        assertTrue(overall.get("tune").tokensMape() <= 0.07, "tune MAPE " + overall.get("tune").tokensMape());
        assertTrue(overall.get("holdout").tokensMape() <= 0.07, "holdout MAPE " + overall.get("holdout").tokensMape());
        for (Validation.Summary s : REPORT.summaries())
            if (!s.group().equals("overall") && s.rows() > 0)
                assertTrue(s.tokensMape() <= 0.15, s.group() + " " + s.split() + ": " + s.tokensMape());
        // the new families each have tune and holdout rows
        for (String family : new String[]{"Megatron-Core MoE (H100)", "Consumer GPUs (RTX 3090/4090)"}) {
            Map<String, Validation.Summary> f = bySplit(family);
            assertTrue(f.get("tune").rows() >= 3 && f.get("holdout").rows() >= 2, family + ": " + f.keySet());
        }
        long large = REPORT.rows().stream().filter(r -> r.gpus() >= 256).map(Validation.Row::split).distinct().count();
        assertEquals(2, large, "runs of 256 GPUs or more in tune and in holdout");
    }
}
