package dev.trainadvisor.spec;

/**
 * How the expert layers move each routed copy of a token to its expert's rank and back ({@code parallel.moe_dispatcher};
 * Megatron-Core's --moe-token-dispatcher-type, megatron/core/transformer/moe/token_dispatcher.py). Megatron's own
 * default, allgather (every rank gathers the group's tokens), is not modelled: a run that uses it is priced as
 * all-to-all.
 * <ul>
 * <li>{@code ALLTOALL}, what a run file names none of: NCCL all-to-alls over the expert-parallel group, a copy for
 * every (token, expert) pair, each crossing the network on its own when its expert sits on another node
 * (MoEAlltoAllTokenDispatcher).</li>
 * <li>{@code DEEPEP}: DeepSeek's DeepEP kernels (Megatron's flex dispatcher with --moe-enable-deepep): a token crosses
 * the network once per node that holds any of its experts, to the GPU of the same local rank there, and NVLink
 * forwards it to the experts' GPUs (DeepEP README, "normal kernels with NVLink and RDMA forwarding"; DeepSeek-V3
 * technical report, arXiv 2412.19437, section 3.2.2).</li>
 * <li>{@code HYBRIDEP}: NVIDIA's HybridEP (Megatron's flex dispatcher, for NVLink domains of many GPUs such as GB200
 * NVL72): likewise once per NVLink domain, NVLink inside it.</li>
 * </ul>
 */
public enum MoeDispatcher {
    /** NCCL's kernels, whose channels slow the compute beside them as the link's transport says (transports.json). */
    ALLTOALL(0),
    /**
     * DeepEP V1's normal kernels hold 24 SMs ("Buffer.set_num_sms(24)", docs/legacy.md of github.com/deepseek-ai/DeepEP, the version Megatron-Core's
     * flex dispatcher ran in 2025; V2 brings it to 4-6, DeepEP README).
     */
    DEEPEP(24),
    /**
     * HybridEP's kernels run on 16 SMs in NVIDIA's published tests (TMA copies; Hybrid-EP_Intra-node_Implementation.md of github.com/deepseek-ai/DeepEP,
     * the DeepEP hybrid-ep branch, B200 and GB200 tables, "SM Count: 16").
     */
    HYBRIDEP(16);

    private final int sms;

    MoeDispatcher(int sms) { this.sms = sms; }

    /**
     * The SMs its kernels hold while they run, which the compute beside them (an overlapped all-to-all) does without;
     * 0 where the link's transport says how much it slows the compute.
     */
    public int sms() { return sms; }

    /** Whether a token crosses the network once per NVLink domain holding its experts, not once per expert. */
    public boolean oncePerDomain() { return this == DEEPEP || this == HYBRIDEP; }

    public String key() { return name().toLowerCase(java.util.Locale.ROOT); }
}
