"""Which attention kernel PyTorch's scaled_dot_product_attention runs by default on an H200, and what it costs a
GPT-3 1.3B-shaped model (bench/h200_step_overheads.py's, no position embedding) per micro-batch.

1. SDPA, bf16, causal, batch 4 x 16 heads x seq 2048 x head 128 (the model's attention): the CUDA kernels the
   profiler sees under the default backend selection, and the forward + backward time under each backend forced
   (flash = FlashAttention-2, cudnn, efficient = memory-efficient), median of 20 after 5 warm-up.
2. The whole model's forward + backward per micro-batch (4 x 2048 tokens), median of 10 after 3 warm-up: weights in
   bf16, and fp32 weights under torch.autocast(bf16), each with the default SDPA backend.
Run on one GPU: python3 bench/h200_sdpa_default.py OUT.json
"""
import json, sys, statistics
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend

H, L, HEADS, V, SEQ, MBS = 2048, 24, 16, 50257, 2048, 4


def timed(fn, warm, reps):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); torch.cuda.synchronize()
        out.append(a.elapsed_time(b) / 1e3)
    return statistics.median(out)


def attention_rows():
    q, k, v = (torch.randn(MBS, HEADS, SEQ, H // HEADS, device="cuda", dtype=torch.bfloat16, requires_grad=True)
               for _ in range(3))
    g = torch.randn_like(q)

    def step():
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        o.backward(g)

    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        step(); torch.cuda.synchronize()
    kernels = sorted({e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA})
    rows = {"default_kernels": kernels, "default_s": timed(step, 5, 20)}
    for name, be in (("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION),
                     ("efficient", SDPBackend.EFFICIENT_ATTENTION)):
        try:
            with sdpa_kernel(be):
                rows[name + "_s"] = timed(step, 5, 20)
        except Exception as e:  # a backend the build lacks
            rows[name + "_s"] = "unavailable: " + str(e)[:200]
    flops = 4 * MBS * HEADS * SEQ * SEQ * (H // HEADS) / 2 * 3.5   # causal fwd (2 GEMMs) + bwd (5 GEMMs) over 2
    rows["causal_fwd_bwd_flops"] = flops
    return rows


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(H); self.qkv = nn.Linear(H, 3 * H); self.proj = nn.Linear(H, H)
        self.ln2 = nn.LayerNorm(H); self.fc = nn.Linear(H, 4 * H); self.out = nn.Linear(4 * H, H)

    def forward(self, x):
        b, s, _ = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, s, 3, HEADS, H // HEADS).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, s, H)
        x = x + self.proj(a)
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, H)
        self.blocks = nn.ModuleList(Block() for _ in range(L)); self.ln = nn.LayerNorm(H)

    def forward(self, idx):
        x = self.emb(idx)
        for blk in self.blocks:
            x = blk(x)
        return F.linear(self.ln(x), self.emb.weight)


def model_rows():
    idx = torch.randint(0, V, (MBS, SEQ), device="cuda")
    out = {}
    for mode in ("bf16_weights", "autocast_fp32_weights"):
        torch.manual_seed(0)
        m = GPT().cuda()
        if mode == "bf16_weights":
            m = m.to(torch.bfloat16)

        def step():
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=mode != "bf16_weights"):
                logits = m(idx)
                loss = F.cross_entropy(logits.float().view(-1, V), idx.view(-1))
            loss.backward()
            for p in m.parameters():
                p.grad = None

        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            step(); torch.cuda.synchronize()
        attn = sorted({e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA
                       and ("flash" in e.name.lower() or "cudnn" in e.name.lower() or "fmha" in e.name.lower()
                            or "attention" in e.name.lower() or "sdpa" in e.name.lower())})
        out[mode] = {"fwd_bwd_per_micro_batch_s": timed(step, 3, 10), "attention_kernels": attn[:12]}
        del m
        torch.cuda.empty_cache()
    return out


def main(path):
    res = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
           "cudnn": torch.backends.cudnn.version(), "attention": attention_rows(), "model": model_rows(),
           "method": __doc__}
    json.dump(res, open(path, "w"), indent=1)
    print(json.dumps({k: v for k, v in res.items() if k != "method"}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1])
