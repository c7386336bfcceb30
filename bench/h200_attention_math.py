"""Attention without a fused kernel: PyTorch's scaled_dot_product_attention on its math backend against its flash
backend, forward + backward, causal, bf16, on one GPU. Shapes: batch 1-4, sequence 1024-8192, 16 and 32 heads of 128;
CUDA events around 10 calls after 3 warm-up (median of 3 repeats); the profiler's kernels of one math forward +
backward, with their names, durations and count; peak memory of one forward + backward beyond the inputs.
Run on one GPU: python3 bench/h200_attention_math.py OUT.json
"""
import json, sys
import torch
from timing import timed
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel




def case(b, s, heads, d=128):
    q, k, v = (torch.randn(b, heads, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    g = torch.randn(b, heads, s, d, device="cuda", dtype=torch.bfloat16)
    row = {"batch": b, "seq_len": s, "heads": heads, "head_dim": d}
    for name, backend in (("flash", SDPBackend.FLASH_ATTENTION), ("math", SDPBackend.MATH)):
        def fwd():
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(q, k, v, is_causal=True)

        def fwd_bwd():
            out = fwd()
            out.backward(g)
        row[name + "_forward_s"] = timed(fwd)
        row[name + "_fwd_bwd_s"] = timed(fwd_bwd)
        torch.cuda.reset_peak_memory_stats(); base = torch.cuda.memory_allocated()
        fwd_bwd(); torch.cuda.synchronize()
        row[name + "_peak_extra_bytes"] = torch.cuda.max_memory_allocated() - base
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        with sdpa_kernel(SDPBackend.MATH):
            F.scaled_dot_product_attention(q, k, v, is_causal=True).backward(g)
        torch.cuda.synchronize()
    kernels = [(e.name, e.device_time) for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    row["math_kernels"] = len(kernels)
    row["math_kernel_us"] = [[n[:80], t] for n, t in kernels]
    # model FLOPs of the full score matrix, forward: 4 b s^2 h d (QK^T and PV)
    row["full_forward_flops"] = 4.0 * b * s * s * heads * d
    print({k: v for k, v in row.items() if k != "math_kernel_us"}, flush=True)
    return row


def main(out):
    rows = [case(b, s, h) for (b, s, h) in [(1, 1024, 16), (1, 2048, 16), (4, 2048, 16), (1, 4096, 16), (1, 8192, 16),
                                              (1, 2048, 32), (2, 4096, 32)]]
    json.dump({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "method": __doc__.strip(), "rows": rows},
              open(out, "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
