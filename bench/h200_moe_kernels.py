"""The kernels of an MoE layer apart from the dense ones, on one GPU, bf16:
1. expert GEMMs at the tokens each expert gets: all experts as one grouped GEMM (torch._grouped_mm where this
   PyTorch has it) and as a loop of one torch.mm per expert (what a loop implementation launches), forward only,
   up-projection shape (tokens x hidden) @ (hidden x ffn); TFLOPS against tokens per expert;
2. token permutation: index_select of the routed copies of the tokens into expert order (permute) and index_add of
   them back weighted (unpermute), bytes moved over time (one read and one write of every routed copy);
3. the router: logits GEMM, softmax and top-k over experts for a micro-batch of tokens.
CUDA events around 10 calls after 3 warm-up (median of 3 repeats).
Run on one GPU: python3 bench/h200_moe_kernels.py OUT.json
"""
import json, sys
import torch
from timing import timed




def expert_gemms(experts, per_expert, hidden, ffn):
    x = torch.randn(experts * per_expert, hidden, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(experts, hidden, ffn, device="cuda", dtype=torch.bfloat16)
    flops = 2.0 * experts * per_expert * hidden * ffn
    row = {"experts": experts, "tokens_per_expert": per_expert, "hidden": hidden, "ffn": ffn, "flops": flops}
    chunks = x.split(per_expert)
    row["loop_s"] = timed(lambda: [torch.mm(c, w[i]) for i, c in enumerate(chunks)])
    row["loop_tflops"] = flops / row["loop_s"] / 1e12
    if hasattr(torch, "_grouped_mm"):
        offs = torch.arange(per_expert, experts * per_expert + 1, per_expert, device="cuda", dtype=torch.int32)
        try:
            row["grouped_s"] = timed(lambda: torch._grouped_mm(x, w, offs=offs))
            row["grouped_tflops"] = flops / row["grouped_s"] / 1e12
        except Exception as ex:
            row["grouped_error"] = str(ex)[:200]
    dense = torch.randn(hidden, ffn, device="cuda", dtype=torch.bfloat16)
    row["one_gemm_s"] = timed(lambda: torch.mm(x, dense))          # the same FLOPs as one dense GEMM
    row["one_gemm_tflops"] = flops / row["one_gemm_s"] / 1e12
    print(row, flush=True)
    return row


def permutation(tokens, hidden, topk, experts):
    x = torch.randn(tokens, hidden, device="cuda", dtype=torch.bfloat16)
    idx = torch.randint(0, experts, (tokens, topk), device="cuda")
    order = torch.argsort(idx.flatten(), stable=True)
    src = order // topk
    weights = torch.rand(tokens * topk, 1, device="cuda", dtype=torch.bfloat16)
    out = torch.zeros_like(x)
    routed_bytes = 2.0 * tokens * topk * hidden * 2       # one read and one write of each routed copy
    perm = timed(lambda: x.index_select(0, src))
    y = x.index_select(0, src)
    unperm = timed(lambda: out.index_add_(0, src, y * weights))
    sort = timed(lambda: torch.argsort(torch.randint(0, experts, (tokens * topk,), device="cuda"), stable=True))
    row = {"tokens": tokens, "hidden": hidden, "top_k": topk, "experts": experts, "routed_bytes": routed_bytes,
           "permute_s": perm, "permute_gbps": routed_bytes / perm / 1e9,
           "unpermute_s": unperm, "unpermute_gbps": routed_bytes / unperm / 1e9, "sort_s": sort}
    print(row, flush=True)
    return row


def router(tokens, hidden, experts, topk):
    x = torch.randn(tokens, hidden, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(hidden, experts, device="cuda", dtype=torch.bfloat16)

    def fn():
        p = torch.softmax((x @ w).float(), dim=-1)
        return torch.topk(p, topk, dim=-1)
    row = {"tokens": tokens, "hidden": hidden, "experts": experts, "top_k": topk, "router_s": timed(fn)}
    print(row, flush=True)
    return row


def main(out):
    gemms = []
    for experts, hidden, ffn in ((8, 4096, 14336), (128, 2048, 768), (64, 2048, 1408), (32, 2880, 2880)):
        for per_expert in (64, 128, 256, 512, 1024, 2048, 4096, 8192):
            if experts * per_expert > 262144:
                continue
            gemms.append(expert_gemms(experts, per_expert, hidden, ffn))
    perms = [permutation(t, h, k, e) for (t, h, k, e) in ((8192, 4096, 2, 8), (16384, 2048, 8, 128), (32768, 2048, 8, 128),
                                                         (8192, 2880, 4, 128))]
    routers = [router(t, h, e, k) for (t, h, e, k) in ((8192, 4096, 8, 2), (16384, 2048, 128, 8))]
    meta = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "cuda": torch.version.cuda,
            "method": __doc__.strip().splitlines()}
    json.dump({"meta": meta, "expert_gemms": gemms, "permutation": perms, "router": routers}, open(out, "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
