"""Single-GPU training steps of GPT-style models whose kernels get small: how the step time per token grows as the
micro-batch shrinks, in eager PyTorch, against the GPU work the step model counts. Models: GPT-3 125M (hidden 768,
12 layers, 12 heads), 350M (1024, 24, 16) and 1.3B (2048, 24, 16), vocabulary 50257, learned positions, LayerNorm,
GELU, tied embedding, SDPA attention (flash backend), bf16 weights and activations; fp32 master weights and fused
AdamW after each backward, as h200_step_overheads.py. Sequence 2048; micro-batches 1, 2, 4 and 8, one per step.
Each configuration runs 10 steps; CUDA events time forward + backward of steps 4-10 (median), and the PyTorch
profiler counts the CUDA kernels of one forward + backward.
Run on one GPU: python3 bench/h200_small_kernels.py OUT.json
"""
import json, sys, statistics
import torch
import torch.nn as nn
import torch.nn.functional as F

V, SEQ = 50257, 2048
MODELS = {"gpt3-125m": (768, 12, 12), "gpt3-350m": (1024, 24, 16), "gpt3-1.3b": (2048, 24, 16)}


class Block(nn.Module):
    def __init__(self, h, heads):
        super().__init__()
        self.h, self.heads = h, heads
        self.ln1 = nn.LayerNorm(h); self.qkv = nn.Linear(h, 3 * h); self.proj = nn.Linear(h, h)
        self.ln2 = nn.LayerNorm(h); self.fc = nn.Linear(h, 4 * h); self.out = nn.Linear(4 * h, h)

    def forward(self, x):
        b, s, _ = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, s, 3, self.heads, self.h // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, s, self.h)
        x = x + self.proj(a)
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, h, layers, heads):
        super().__init__()
        self.emb = nn.Embedding(V, h); self.pos = nn.Embedding(SEQ, h)
        self.blocks = nn.ModuleList(Block(h, heads) for _ in range(layers)); self.ln = nn.LayerNorm(h)

    def forward(self, idx):
        x = self.emb(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        return F.linear(self.ln(x), self.emb.weight)


def run(name, mbs):
    h, layers, heads = MODELS[name]
    torch.manual_seed(0)
    model = GPT(h, layers, heads).cuda().to(torch.bfloat16)
    master = [p.detach().float().requires_grad_() for p in model.parameters()]
    opt = torch.optim.AdamW(master, lr=1e-4, fused=True)
    idx = torch.randint(0, V, (mbs, SEQ), device="cuda")

    def fwd_bwd():
        logits = model(idx)
        F.cross_entropy(logits.float().view(-1, V), idx.view(-1)).backward()

    times = []
    for step in range(10):
        for p in model.parameters():
            p.grad = None
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fwd_bwd()
        e.record()
        for p, m in zip(model.parameters(), master):
            m.grad = p.grad.float()
        opt.step()
        with torch.no_grad():
            for p, m in zip(model.parameters(), master):
                p.copy_(m)
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e) / 1e3)
    from torch.profiler import profile, ProfilerActivity
    for p in model.parameters():
        p.grad = None
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fwd_bwd(); torch.cuda.synchronize()
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    gpu_busy = sum(e.device_time for e in kernels) / 1e6
    fb = statistics.median(times[3:])
    row = {"model": name, "hidden": h, "layers": layers, "heads": heads, "micro_batch_size": mbs, "seq_len": SEQ,
           "params": sum(p.numel() for p in model.parameters()), "fwd_bwd_s": fb,
           "tokens_per_s": mbs * SEQ / fb, "kernels": len(kernels), "kernel_busy_s": gpu_busy}
    print(row, flush=True)
    del model, master, opt
    torch.cuda.empty_cache()
    return row


def main(out):
    rows = [run(name, mbs) for name in MODELS for mbs in (1, 2, 4, 8)]
    json.dump({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "method": __doc__.strip(), "rows": rows},
              open(out, "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
