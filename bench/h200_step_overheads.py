"""Framework time around the optimizer step that a roofline of its HBM traffic does not count. A GPT-style model
(hidden 2048, 24 layers, 16 heads, vocabulary 50257: GPT-3 1.3B) trains a few steps in plain PyTorch with bf16
weights, fp32 AdamW (fused) and gradient clipping, on one GPU; CUDA events time each phase of a step:
  zero_grad, forward, backward, clip (the gradient norm), optimizer (AdamW.step), and the step as a whole.
The HBM-bound model of the update (knowledge-base, perf/StepModel.optimizerSeconds: 28 bytes per parameter at 85%
of the datasheet bandwidth) is printed beside it; what the phases after the backward take beyond it is the overhead.
Run on one GPU: python3 bench/h200_step_overheads.py OUT.json
"""
import json, sys
import torch
import torch.nn as nn
import torch.nn.functional as F

H, L, HEADS, V, SEQ, MBS = 2048, 24, 16, 50257, 2048, 4


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
        self.emb = nn.Embedding(V, H); self.pos = nn.Embedding(SEQ, H)
        self.blocks = nn.ModuleList(Block() for _ in range(L)); self.ln = nn.LayerNorm(H)

    def forward(self, idx):
        x = self.emb(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        return F.linear(self.ln(x), self.emb.weight)


def main(out):
    torch.manual_seed(0)
    model = GPT().cuda().to(torch.bfloat16)
    params = sum(p.numel() for p in model.parameters())
    master = [p.detach().float().requires_grad_() for p in model.parameters()]
    opt = torch.optim.AdamW(master, lr=1e-4, fused=True)
    idx = torch.randint(0, V, (MBS, SEQ), device="cuda")
    ev = lambda: torch.cuda.Event(enable_timing=True)
    rows = []
    for step in range(12):
        e = [ev() for _ in range(7)]
        e[0].record()
        opt.zero_grad(set_to_none=True)
        for p in model.parameters():
            p.grad = None
        e[1].record()
        logits = model(idx)
        loss = F.cross_entropy(logits.float().view(-1, V), idx.view(-1))
        e[2].record()
        loss.backward()
        e[3].record()
        for p, m in zip(model.parameters(), master):   # bf16 grads into the fp32 master copy, as mixed precision does
            m.grad = p.grad.float()
        norm = torch.nn.utils.clip_grad_norm_(master, 1.0)
        e[4].record()
        opt.step()
        e[5].record()
        with torch.no_grad():
            for p, m in zip(model.parameters(), master):
                p.copy_(m)
        e[6].record()
        torch.cuda.synchronize()
        t = [e[i].elapsed_time(e[i + 1]) / 1e3 for i in range(6)]
        rows.append({"step": step, "zero_grad_s": t[0], "forward_s": t[1], "backward_s": t[2], "grad_copy_and_clip_s": t[3],
                     "adamw_step_s": t[4], "copy_to_bf16_s": t[5], "after_backward_s": t[3] + t[4] + t[5] + t[0]})
        print(rows[-1], flush=True)
    steady = rows[4:]
    med = lambda k: sorted(r[k] for r in steady)[len(steady) // 2]
    hbm = torch.cuda.get_device_properties(0)
    model_s = params * 28 / (4.8e12 * 0.85)            # H200: 4.8 TB/s datasheet
    summary = {k: med(k) for k in rows[0] if k != "step"}
    json.dump({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "params": params,
               "model": "GPT-3 1.3B shape (hidden 2048, 24 layers, 16 heads), seq 2048, micro-batch 4, bf16 weights, fp32 AdamW fused, clip 1.0",
               "optimizer_hbm_model_s": model_s, "median_of_steps_4_to_11": summary,
               "after_backward_beyond_model_s": summary["after_backward_s"] - model_s, "method": __doc__, "rows": rows},
              open(out, "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
