package dev.trainadvisor.perf;

import dev.trainadvisor.spec.Model;
import dev.trainadvisor.spec.MoeDispatcher;
import dev.trainadvisor.spec.Parallel;

import java.util.ArrayList;
import java.util.List;

/**
 * Expert parallelism with expert tensor parallelism, folded over the stage's TP x CP x DP ranks as Megatron-Core does
 * (ETP innermost, then EP, then expert data parallelism; MoE Parallel Folding, Liu et al. 2025, arXiv 2504.14960, and
 * megatron/core/transformer/moe/README.md of github.com/NVIDIA/Megatron-LM). Every MoE layer sends each routed copy of a token to its expert's EP rank
 * and back (dispatch and combine all-to-alls), in the forward and again in the backward; with ETP above 1 the copies an
 * EP rank receives are all-gathered over its ETP group before the experts and reduce-scattered after
 * (token_dispatcher.py, MoEAlltoAllTokenDispatcher).
 */
final class ExpertParallel implements ParallelDimension {

    /** Each rank holds its experts' share: experts / ep of them, each split over etp. */
    @Override
    public double shards(MemoryPart part, Parallel p) {
        return part == MemoryPart.EXPERT_WEIGHTS ? (double) p.ep() * p.etp() : 1;
    }

    @Override
    public List<CollectivePlan> collectives(StepContext s) {
        Model m = s.model();
        Parallel p = s.parallel();
        if (!m.isMoe() || p.ep() * p.etp() <= 1) return List.of();
        // the routed copies of this rank's tokens: with sequence parallelism each TP rank routes its slice
        double local = s.tokensPerMicroBatch() / (p.sequenceParallel() ? p.tp() : 1);
        double routed = local * m.moe().topK() * m.moe().paddedShare() * m.hidden() * 2;
        double moeLayersPerStage = (double) m.moeLayers() / p.pp();
        // each way: dispatch and combine in the forward, their gradients in the backward
        long passes = (long) Math.ceil(moeLayersPerStage * s.training().microBatches() * 2);
        List<CollectivePlan> out = new ArrayList<>();
        if (p.ep() > 1) {
            // across NVLink domains, the network carries a token once per domain (DeepEP, HybridEP) or once per expert
            MoeDispatcher d = p.moeDispatcher();
            boolean once = d.oncePerDomain();
            double share = once ? Topology.oncePerDomainShare(s.topology().domainsSpanned(p.ep(), p.etp()), m.moe().topK()) : 1;
            LinkChoice link = s.topology().placeAllToAll(p.ep(), p.etp(), share, once);
            // kernels that hold SMs of their own leave the compute beside them the rest: it runs at (S - k) / S of its
            // pace, i = k / (S - k)
            int sms = s.cluster().gpu().sms();
            if (d.sms() > 0 && sms > d.sms())
                link = s.topology().withInterference(link, (double) d.sms() / (sms - d.sms()));
            out.add(new CollectivePlan(CollectiveOp.EP_ALL_TO_ALL, p.ep(), routed, 2 * passes, 2 * passes, link,
                    p.moeA2aOverlap() ? OverlapWindow.OTHER_MICRO_BATCH : OverlapWindow.NONE, 0.5, false));
        }
        if (p.etp() > 1) {
            LinkChoice link = s.topology().place(p.etp(), 1);
            double gathered = routed * p.etp();
            out.add(new CollectivePlan(CollectiveOp.ETP_ALL_GATHER, p.etp(), gathered, passes, passes, link,
                    OverlapWindow.NONE, 0.5, false));
            out.add(new CollectivePlan(CollectiveOp.ETP_REDUCE_SCATTER, p.etp(), gathered, passes, passes, link,
                    OverlapWindow.NONE, 0.5, false));
        }
        return out;
    }
}
