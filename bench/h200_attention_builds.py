"""Attention kernels by build: FlashAttention written in Triton as 2023 training code ran it, and the same algorithm as
Triton's tutorial writes it now, timed forward and forward + backward on one H200 beside PyTorch's SDPA backends.
Causal, head dim 128, 32 heads, batch x sequence = 32768 tokens, sequence 512-32768. Each variant runs in a process of
its own (the compiler's settings are read per process); CUDA events around enough calls to take ~0.3 s after one warm-up
call (autotuning and compilation happen there), the median of 3 repeats. Throughput counts the causal FLOPs: forward
2 b s^2 h d, backward 2.5 x forward (FlashAttention's convention, 3.5 x forward in all); the step model's fraction counts
3 x forward (its backward is twice its forward) over the H200's 989 TFLOPS dense bf16.

Variants (the kernels' sources are vendored in bench/vendor/, not committed: see bench/VENDOR.md for their commits,
licences, checksums and the only edits made to run them on Triton 3.6):
- foundry-2023-mma2: llm-foundry's llmfoundry/models/layers/flash_attn_triton.py at 4c94c20 (2023-05-24), the kernel
  MPT's attn_impl 'triton' ran (Tri Dao's FlashAttention in Triton, built on the tutorial), bf16, compiled with
  DISABLE_MMA_V3=1 so that Triton emits Ampere's mma.sync on Hopper as the pre-MLIR compiler llm-foundry pinned for
  H100 did (triton-pre-mlir of vchiley/triton, branch triton_pre_mlir_sm90: an sm_90 target added to the 2022
  compiler, no wgmma);
- foundry-2023-wgmma: the same source compiled by Triton 3.6 as it is (Hopper's wgmma): what the 2023 kernel gets from
  a compiler of today;
- tutorial-2023-mma2 / -wgmma: triton-lang/triton python/tutorials/06-fused-attention.py at 5162871 (2023-08-12), fp16
  as written;
- tutorial-recent: the tutorial at 003da47 (TensorDescriptor/TMA forward on Hopper), fp16 as written, its forward
  autotuned over the 3 configurations of its Hopper space with 128 x 128 blocks and 8 warps (2-4 stages; the full
  space is 40, too many to compile inside the lease);
- sdpa-flash: torch.nn.functional.scaled_dot_product_attention on SDPBackend.FLASH_ATTENTION (FlashAttention-2 as
  vendored in PyTorch 2.11), bf16: the catalogue's fa2 curve (bench/h200_attention_kernels.py), measured again beside
  the others as an anchor.
- foundry-2023-noscratch-mma2 / -wgmma: the llm-foundry kernel without its two "BUG: have to store and immediately
  load" round trips through a scratch buffer (a workaround for the 2022 compiler; on Triton 3 the reload races and the
  output is wrong, dv right), to check that the timings above are the kernel's and its errors that round trip's;
- flex: torch.nn.attention.flex_attention under torch.compile with a causal block mask (what torchtitan runs by
  default since 2026-06), bf16, compiled for each shape.
Each variant is first checked against an fp32 reference at sequence 1024 (max abs error of output and gradients).
Run on one GPU: python3 bench/h200_attention_builds.py OUT.json [VARIANT,VARIANT,...] (two calls on the lent H200:
the first ran foundry-2023-mma2 and -wgmma, tutorial-* and sdpa-flash; the second the noscratch and flex variants;
the timing loop, then inline, is bench/timing.py's timed_for, the same steps).
"""
import json, math, os, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import timed_for as timed   # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
VENDOR = os.environ.get("ATTN_VENDOR", os.path.join(HERE, "vendor"))
SEQS = [512, 1024, 2048, 4096, 8192, 16384, 32768]
TOKENS, HEADS, D = 32768, 32, 128
PEAK = 989e12

VARIANTS = {
    "foundry-2023-mma2": ("foundry", "1"),
    "foundry-2023-noscratch-mma2": ("foundry-noscratch", "1"),
    "foundry-2023-noscratch-wgmma": ("foundry-noscratch", "0"),
    "flex": ("flex", "0"),
    "sdpa-flash": ("sdpa-flash", "0"),
    "tutorial-2023-mma2": ("tutorial2023", "1"),
    "foundry-2023-wgmma": ("foundry", "0"),
    "tutorial-2023-wgmma": ("tutorial2023", "0"),
    "tutorial-recent": ("tutorial-recent", "0"),
}


def kernel(kind):
    """A function (q, k, v) -> o on (batch, heads, seq, dim) tensors, and the dtype it takes."""
    import torch
    sys.path.insert(0, VENDOR)
    if kind.startswith("foundry"):
        if kind == "foundry":
            import foundry_flash_attn_triton_4c94c20 as m    # takes (batch, seq, heads, dim)
        else:
            import foundry_flash_attn_triton_4c94c20_noscratch as m
        return (lambda q, k, v: m.flash_attn_func(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                                  None, True, None).transpose(1, 2)), torch.bfloat16, True
    if kind == "tutorial2023":
        import triton_tutorial_fused_attention_5162871 as m
        return (lambda q, k, v: m.attention(q, k, v, True, 1 / math.sqrt(D))), torch.float16, False
    if kind == "tutorial-recent":
        import triton_tutorial_fused_attention_003da47 as m
        m._attn_fwd_tma.configs = [c for c in m._attn_fwd_tma.configs
                                   if c.kwargs["BLOCK_M"] == 128 and c.num_warps == 8 and c.kwargs["BLOCK_N"] >= 64
                                   and c.num_stages in (2, 3, 4)]
        return (lambda q, k, v: m.attention(q, k, v, True, 1 / math.sqrt(D))), torch.float16, False
    if kind == "flex":
        import torch._dynamo
        from torch.nn.attention.flex_attention import flex_attention, create_block_mask
        torch._dynamo.config.cache_size_limit = 64
        compiled, masks = torch.compile(flex_attention, dynamic=False), {}

        def causal(b, h, q_idx, kv_idx):
            return q_idx >= kv_idx

        def f(q, k, v):
            s = q.shape[2]
            if s not in masks:
                masks[s] = create_block_mask(causal, None, None, s, s, device="cuda")
            return compiled(q, k, v, block_mask=masks[s])
        return f, torch.bfloat16, False
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backend = SDPBackend.FLASH_ATTENTION

    def f(q, k, v):
        with sdpa_kernel(backend):
            return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    return f, torch.bfloat16, False


def tensors(b, s, h, dtype, bshd):
    """q, k, v, grad in (b, h, s, d) views; stored (b, s, h, d) where the kernel reads that layout."""
    import torch
    shape = (b, s, h, D) if bshd else (b, h, s, D)
    q, k, v = (torch.randn(shape, device="cuda", dtype=dtype).mul_(0.5).requires_grad_() for _ in range(3))
    g = torch.randn(shape, device="cuda", dtype=dtype)
    view = (lambda x: x.transpose(1, 2)) if bshd else (lambda x: x)
    return q, k, v, g, view


def check(fn, dtype, bshd):
    """Max abs error of the output and the gradients against an fp32 reference, at sequence 1024, 4 heads."""
    import torch
    s = 1024
    q, k, v, g, view = tensors(1, s, 4, dtype, bshd)
    o = fn(view(q), view(k), view(v))
    o.backward(view(g))
    got = [o.float(), view(q.grad).float(), view(k.grad).float(), view(v.grad).float()]
    qf, kf, vf = (view(x).detach().float().requires_grad_() for x in (q, k, v))
    p = (qf @ kf.transpose(-1, -2)) / math.sqrt(D)
    p = p.masked_fill(torch.triu(torch.ones(s, s, dtype=torch.bool, device="cuda"), 1), float("-inf")).softmax(-1)
    ro = p @ vf
    ro.backward(view(g).float())
    want = [ro, qf.grad, kf.grad, vf.grad]
    return {n: float((a - b).abs().max()) for n, a, b in zip(("o", "dq", "dk", "dv"), got, want)}


def run_variant(name, part):
    """Times one variant, writing what it has to the file part after every sequence length (a timeout keeps them)."""
    import torch, triton
    kind, _ = VARIANTS[name]
    fn, dtype, bshd = kernel(kind)
    row = {"variant": name, "dtype": str(dtype).replace("torch.", ""), "triton": triton.__version__,
           "DISABLE_MMA_V3": os.environ.get("DISABLE_MMA_V3", "0")}
    try:
        row["check_max_abs_error"] = check(fn, dtype, bshd)
    except Exception as ex:
        row["check_error"] = repr(ex)[:300]
    rows = []
    json.dump(dict(row, rows=rows), open(part, "w"), indent=1)
    for s in SEQS:
        b = max(1, TOKENS // s)
        q, k, v, g, view = tensors(b, s, HEADS, dtype, bshd)
        fwd_flops = 2.0 * b * s * s * HEADS * D
        r = {"seq_len": s, "batch": b, "causal_forward_flops": fwd_flops}
        try:
            with torch.no_grad():
                tf, nf = timed(lambda: fn(view(q), view(k), view(v)))

            def fb():
                fn(view(q), view(k), view(v)).backward(view(g))
            tfb, nfb = timed(fb)
        except Exception as ex:
            r["error"] = repr(ex)[:300]
            rows.append(r); print(name, r, flush=True)
            json.dump(dict(row, rows=rows), open(part, "w"), indent=1)
            continue
        r.update(forward_s=tf, fwd_bwd_s=tfb, reps=[nf, nfb],
                 forward_tflops=fwd_flops / tf / 1e12, fwd_bwd_tflops=3.5 * fwd_flops / tfb / 1e12,
                 model_fraction=3 * fwd_flops / tfb / PEAK)
        rows.append(r)
        json.dump(dict(row, rows=rows), open(part, "w"), indent=1)
        print(name, s, "fwd %.1f  fwd+bwd %.1f TFLOPS  fraction %.3f" % (r["forward_tflops"], r["fwd_bwd_tflops"],
                                                                       r["model_fraction"]), flush=True)
        del q, k, v, g
        torch.cuda.empty_cache()
    json.dump(dict(row, rows=rows), open(part, "w"), indent=1)


def main(out, only):
    import torch
    results, started = [], time.time()
    for name, (_, mma) in VARIANTS.items():
        if only and name not in only:
            continue
        env = dict(os.environ, DISABLE_MMA_V3=mma, TRITON_CACHE_DIR="/tmp/triton-cache-" + name)
        part = "/tmp/attention-builds-" + name + ".json"
        left = 500 - (time.time() - started)
        if left < 30:
            results.append({"variant": name, "error": "not run: out of time"}); continue
        error = None
        try:
            p = subprocess.run([sys.executable, __file__, "--variant", name, part], env=env, timeout=min(240 if name == "flex" else 150, left))
            if p.returncode != 0:
                error = "rc %d" % p.returncode
        except subprocess.TimeoutExpired:
            error = "timed out"
        got = json.load(open(part)) if os.path.exists(part) else {"variant": name}
        if error:
            got["error"] = error
        results.append(got)
        json.dump({"variants": results}, open(out, "w"), indent=1)
        print(name, "done at %.0f s" % (time.time() - started), flush=True)
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,clocks.sm,clocks.max.sm,power.limit", "--format=csv"],
                         capture_output=True, text=True).stdout
    meta = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version(), "nvidia_smi": smi.strip().splitlines(),
            "method": __doc__.strip().splitlines()}
    json.dump({"meta": meta, "variants": results}, open(out, "w"), indent=1)


if __name__ == "__main__":
    if sys.argv[1] == "--variant":
        run_variant(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv[1], sys.argv[2].split(",") if len(sys.argv) > 2 else None)
