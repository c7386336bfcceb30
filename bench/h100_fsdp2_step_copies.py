"""FSDP2's copies inside a real training step, on one GPU: python3 bench/h100_fsdp2_step_copies.py OUT.json

A stack of Llama-shaped blocks (OLMo 2 13B's: hidden 5120, 40 heads, SwiGLU 13824; 4 blocks, each its own
fully_shard unit, and the root) is trained for a few steps of 4 micro-batches of one 4096-token sequence under
fully_shard with MixedPrecisionPolicy(param_dtype=bfloat16, reduce_dtype=float32), on a process group of one rank
(NCCL), and once more with reduce_dtype bfloat16. The PyTorch profiler's CUDA kernel times are summed by kind: the
all-gather's copy-out (split_with_sizes_copy), the reduce-scatter's copy-in (chunk_cat), the GEMMs, the rest. Each is
set against what the step model charges for the copies (2 x the unsharded parameters' bf16 bytes read and written at
each of the forward's and backward's gathers; the gradients' 2 bytes and the reduce dtype's at each reduction), at the
rates bench/h100_nvlink_interference.py measured the same calls at alone: so the copies are seen where FSDP2 makes
them, on the compute stream of a step, and timed there.
"""
import json, os, sys, time
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy

H, HEADS, FFN, SEQ, LAYERS, MB = 5120, 40, 13824, 4096, 4, 4


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.n1 = nn.RMSNorm(H)
        self.qkv = nn.Linear(H, 3 * H, bias=False)
        self.o = nn.Linear(H, H, bias=False)
        self.n2 = nn.RMSNorm(H)
        self.up = nn.Linear(H, 2 * FFN, bias=False)
        self.down = nn.Linear(FFN, H, bias=False)

    def forward(self, x):
        b, s, _ = x.shape
        q, k, v = self.qkv(self.n1(x)).view(b, s, 3, HEADS, H // HEADS).unbind(2)
        a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        x = x + self.o(a.transpose(1, 2).reshape(b, s, H))
        g, u = self.up(self.n2(x)).chunk(2, dim=-1)
        return x + self.down(F.silu(g) * u)


def kind(name):
    n = name.lower()
    if "split_with_sizes" in n or "split_with_sizes_copy" in n:
        return "copy_out"
    if "chunk_cat" in n:
        return "copy_in"
    if "gemm" in n or "sm90" in n or "cutlass" in n or "nvjet" in n:
        return "gemm"
    if "nccl" in n:
        return "nccl"
    if "flash" in n or "fmha" in n or "attention" in n:
        return "attention"
    return "other"


def run(reduce_dtype, label, rows):
    torch.manual_seed(0)
    model = nn.Sequential(*[Block() for _ in range(LAYERS)]).cuda()
    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=reduce_dtype)
    for blk in model:
        fully_shard(blk, mp_policy=mp)
    fully_shard(model, mp_policy=mp)
    params = sum(p.numel() for p in model.parameters())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    x = torch.randn(1, SEQ, H, device="cuda", dtype=torch.bfloat16)

    def step():
        for _ in range(MB):
            model(x).float().pow(2).mean().backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    from torch.profiler import profile, ProfilerActivity
    steps = 3
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
    by = {}
    names = {}
    top = []
    for e in prof.key_averages():
        if e.device_type.name != "CUDA" and getattr(e, "self_device_time_total", 0) == 0:
            continue
        us = getattr(e, "self_device_time_total", None)
        if us is None:
            us = e.self_cuda_time_total
        if us <= 0:
            continue
        top.append((us / 1e3 / steps, e.key[:120]))
        k = kind(e.key)
        by[k] = by.get(k, 0) + us / 1e3 / steps
        if k in ("copy_out", "copy_in"):
            names[e.key] = names.get(e.key, 0) + us / 1e3 / steps
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    torch.cuda.synchronize()
    wall = (time.perf_counter() - t0) / steps * 1e3
    red = 4 if reduce_dtype == torch.float32 else 2
    # what the step model charges (DataParallel.copySeconds), with the rates measured alone on an H100
    out_ms = MB * 2 * 2 * params * 2 / (0.8098 * 3350e9) * 1e3
    in_ms = MB * params * (2 + red) / ((0.5590 if red == 4 else 0.8012) * 3350e9) * 1e3
    rows.append({"run": label, "params": params, "micro_batches": MB, "step_ms": wall, "kernel_ms_per_step": by,
                 "copy_kernels": names, "top_kernels": sorted(top, reverse=True)[:15], "model_copy_out_ms": out_ms, "model_copy_in_ms": in_ms})
    print(rows[-1], flush=True)
    del model, opt


def main(out):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29511")
    dist.init_process_group("nccl", rank=0, world_size=1)
    torch.cuda.set_device(0)
    rows = []
    run(torch.float32, "fully_shard, reduce fp32", rows)
    torch.cuda.empty_cache()
    run(torch.bfloat16, "fully_shard, reduce bf16", rows)
    json.dump({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "method": __doc__, "rows": rows},
              open(out, "w"), indent=1)
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1])
