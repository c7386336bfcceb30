"""Fused attention kernels side by side: PyTorch's scaled_dot_product_attention on its FlashAttention-2 backend
(SDPBackend.FLASH_ATTENTION), its cuDNN backend (SDPBackend.CUDNN_ATTENTION, the kernel Transformer Engine uses on
Hopper) and its memory-efficient backend, causal, bf16, head dim 128, forward and forward + backward, on one GPU.
Shapes: batch x sequence = 16384-65536 tokens, sequence 1024-32768, 32 heads of 128 for queries, keys and values,
CUDA events around 5 calls after 2 warm-up (median of 3 repeats). Throughput is counted on the causal FLOPs
(half the score matrix): forward 2 b s^2 h d, backward 2.5 x forward (5 of the 2 GEMM pairs: dQ, dK, dV, dP and the
recomputed S).
Run on one GPU: python3 bench/h200_attention_kernels.py OUT.json
"""
import json, sys
import torch
from timing import timed
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel




BACKENDS = (("flash2", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION),
            ("efficient", SDPBackend.EFFICIENT_ATTENTION))


def case(b, s, heads=32, d=128):
    q, k, v = (torch.randn(b, heads, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    g = torch.randn(b, heads, s, d, device="cuda", dtype=torch.bfloat16)
    fwd_flops = 2.0 * b * s * s * heads * d          # causal: half of 4 b s^2 h d
    row = {"batch": b, "seq_len": s, "heads": heads, "head_dim": d, "causal_forward_flops": fwd_flops}
    for name, backend in BACKENDS:
        def fwd():
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(q, k, v, is_causal=True)

        def fwd_bwd():
            fwd().backward(g)
        try:
            tf = timed(fwd, reps=5, warmup=2)
            tfb = timed(fwd_bwd, reps=5, warmup=2)
        except Exception as ex:                       # a backend that refuses the shape on this build
            row[name + "_error"] = str(ex)[:200]
            continue
        row[name + "_forward_s"] = tf
        row[name + "_fwd_bwd_s"] = tfb
        row[name + "_forward_tflops"] = fwd_flops / tf / 1e12
        row[name + "_backward_tflops"] = 2.5 * fwd_flops / (tfb - tf) / 1e12
        row[name + "_fwd_bwd_tflops"] = 3.5 * fwd_flops / tfb / 1e12
    print(row, flush=True)
    return row


def main(out):
    shapes = [(16, 1024), (8, 2048), (4, 4096), (2, 8192), (1, 16384), (1, 32768), (2, 32768)]
    rows = [case(b, s) for (b, s) in shapes]
    meta = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version(),
            "method": __doc__.strip().splitlines()[0:6]}
    json.dump({"meta": meta, "rows": rows}, open(out, "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
