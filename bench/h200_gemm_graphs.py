"""Dense bf16 GEMMs by shape without the host: each shape's torch.mm captured 20 times in a CUDA graph and the graph
replayed (CUDA events around 10 replays after 3, median of 3), so small GEMMs show the GPU's own time, not the launch
gap of a Python loop. Shapes: M (tokens) 512-16384, N 768-28672, K 768-28672: the GEMMs of a transformer layer from GPT-2
small to Llama-70B, forward (x @ W: M x K times K x N).
Run on one GPU: python3 bench/h200_gemm_graphs.py OUT.json
"""
import json, sys
import torch
from timing import timed


def case(m, n, k, calls=20):
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    out = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            torch.mm(a, b, out=out)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(calls):
            torch.mm(a, b, out=out)
    seconds = timed(g.replay) / calls
    flops = 2.0 * m * n * k
    row = {"m": m, "n": n, "k": k, "seconds": seconds, "tflops": flops / seconds / 1e12}
    print(row, flush=True)
    return row


def main(out):
    dims = [768, 1024, 2048, 3072, 4096, 8192, 14336, 28672]
    rows = []
    for m in (512, 2048, 8192, 16384):
        for n in dims:
            for k in dims:
                if m * n * k > 16384 * 8192 * 28672:
                    continue
                rows.append(case(m, n, k))
    meta = {"gpu": torch.cuda.get_device_name(), "sms": torch.cuda.get_device_properties(0).multi_processor_count,
            "torch": torch.__version__, "cuda": torch.version.cuda, "method": __doc__.strip().splitlines()}
    json.dump({"meta": meta, "rows": rows}, open(out, "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
