"""Host time per kernel in eager PyTorch: what a step spends launching kernels whose GPU work is too small to hide it.
1. Launch rate: 2000 back-to-back x.add_(1) on a 1-element tensor, wall clock with a synchronize at the end; and the
   same 2000 adds replayed from a CUDA graph.
2. Eager ops of a transformer layer at tiny sizes (hidden 256, 16 tokens): wall time per call of linear, layer_norm,
   gelu, silu, mul, add, scaled_dot_product_attention, each 2000 times; then a whole layer's forward and backward
   (autograd), per kernel launched (counted with the PyTorch profiler).
Run on one GPU: python3 bench/h200_launch_overhead.py OUT.json
"""
import json, sys, time
import torch
import torch.nn.functional as F

N = 2000


def wall_per_call(fn, n=N):
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / n


def main(out):
    res = {}
    x = torch.zeros(1, device="cuda")
    res["add_1_element_eager_s"] = wall_per_call(lambda: x.add_(1))
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            x.add_(1)
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(g):
        for _ in range(N):
            x.add_(1)
    g.replay(); torch.cuda.synchronize()
    t = time.perf_counter(); g.replay(); torch.cuda.synchronize()
    res["add_1_element_graph_s"] = (time.perf_counter() - t) / N

    h, tokens = 256, 16
    dt = torch.bfloat16
    a = torch.randn(tokens, h, device="cuda", dtype=dt)
    w = torch.randn(4 * h, h, device="cuda", dtype=dt)
    ln_w = torch.ones(h, device="cuda", dtype=dt)
    q = torch.randn(1, 4, tokens, h // 4, device="cuda", dtype=dt)
    ops = {
        "linear": lambda: F.linear(a, w),
        "layer_norm": lambda: F.layer_norm(a, (h,), ln_w),
        "gelu": lambda: F.gelu(a),
        "silu": lambda: F.silu(a),
        "mul": lambda: a * a,
        "add": lambda: a + a,
        "sdpa": lambda: F.scaled_dot_product_attention(q, q, q, is_causal=True),
    }
    res["eager_op_s"] = {k: wall_per_call(f) for k, f in ops.items()}

    # a Llama-style layer, eager, forward + backward, at tiny sizes: wall time per launched kernel
    class Layer(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = torch.nn.Linear(h, 3 * h, bias=False); self.o = torch.nn.Linear(h, h, bias=False)
            self.up = torch.nn.Linear(h, 2 * 4 * h, bias=False); self.down = torch.nn.Linear(4 * h, h, bias=False)
            self.n1 = torch.nn.RMSNorm(h); self.n2 = torch.nn.RMSNorm(h)

        def forward(self, x):
            b, s, _ = x.shape
            qq, kk, vv = self.qkv(self.n1(x)).view(b, s, 3, 4, h // 4).permute(2, 0, 3, 1, 4)
            x = x + self.o(F.scaled_dot_product_attention(qq, kk, vv, is_causal=True).transpose(1, 2).reshape(b, s, h))
            gate, up = self.up(self.n2(x)).chunk(2, dim=-1)
            return x + self.down(F.silu(gate) * up)

    layer = Layer().cuda().to(dt)
    inp = torch.randn(1, tokens, h, device="cuda", dtype=dt, requires_grad=True)

    def step():
        layer(inp).sum().backward()

    per_step = wall_per_call(step, 500)
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        step(); torch.cuda.synchronize()
    kernels = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
    res["layer_fwd_bwd_eager"] = {"seconds": per_step, "kernels": kernels, "seconds_per_kernel": per_step / max(1, kernels)}
    props = torch.cuda.get_device_properties(0)
    json.dump({"device": props.name, "torch": torch.__version__, "cuda": torch.version.cuda,
               "method": __doc__.strip(), "results": res}, open(out, "w"), indent=1)
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main(sys.argv[1])
