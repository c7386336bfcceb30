"""GEMM throughput by shape on one GPU, bf16 (torch.matmul, cuBLAS), for the step model's size-dependent GEMM
efficiency. For each (M, N, K): 5 warm-up calls, then CUDA events around 20 back-to-back calls (repeated 5 times,
median); TFLOPS = 2 M N K / time. M is the tokens of a micro-batch on a GPU, N and K the weight's output and input
columns; shapes cover the transformer GEMMs of 125M-70B models at tensor parallelism 1-8 and micro-batches of
256-16384 tokens, plus the small ones where a kernel's launch and tail dominate.
Run on one GPU: python3 bench/h200_gemm_shapes.py OUT.json
"""
import json, sys, statistics
import torch


def time_gemm(m, n, k, dtype=torch.bfloat16):
    a = torch.randn(m, k, device="cuda", dtype=dtype)
    b = torch.randn(k, n, device="cuda", dtype=dtype)
    for _ in range(5):
        torch.matmul(a, b)
    torch.cuda.synchronize()
    reps, samples = 20, []
    for _ in range(5):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(reps):
            torch.matmul(a, b)
        e.record()
        torch.cuda.synchronize()
        samples.append(s.elapsed_time(e) / 1e3 / reps)
    t = statistics.median(samples)
    return t, 2.0 * m * n * k / t / 1e12


def main(out):
    dims = [256, 512, 1024, 2048, 4096, 8192, 16384]
    widths = [512, 1024, 2048, 4096, 8192, 16384, 28672]
    rows = []
    for m in dims:
        for n in widths:
            for k in [1024, 4096, 8192]:
                t, tf = time_gemm(m, n, k)
                rows.append({"m": m, "n": n, "k": k, "seconds": t, "tflops": tf})
        print(m, max(r["tflops"] for r in rows if r["m"] == m), flush=True)
    # tiny GEMMs: the floor one kernel costs on the GPU
    for m, n, k in [(16, 16, 16), (128, 128, 128), (256, 256, 256)]:
        t, tf = time_gemm(m, n, k)
        rows.append({"m": m, "n": n, "k": k, "seconds": t, "tflops": tf})
    props = torch.cuda.get_device_properties(0)
    json.dump({"device": props.name, "sms": props.multi_processor_count, "torch": torch.__version__,
               "cuda": torch.version.cuda, "dtype": "bf16", "method": __doc__.strip(), "rows": rows},
              open(out, "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
