"""The models of h200_small_kernels.py at micro-batch 1 and 4, compiled: torch.compile (inductor, default mode: fused
element-wise kernels, no CUDA graphs) and mode="reduce-overhead" (the same, replayed from CUDA graphs), against eager.
Forward + backward timed as there (CUDA events, median of steps 4-10 after 3 compiled warm-up steps); kernels of one
forward + backward counted with the profiler.
Run on one GPU: python3 bench/h200_compiled_small.py OUT.json
"""
import json, sys, statistics
import torch
import torch.nn.functional as F
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from h200_small_kernels import GPT, MODELS, V, SEQ


def run(name, mbs, mode):
    h, layers, heads = MODELS[name]
    torch.manual_seed(0)
    model = GPT(h, layers, heads).cuda().to(torch.bfloat16)
    idx = torch.randint(0, V, (mbs, SEQ), device="cuda")
    fwd = model if mode == "eager" else torch.compile(model, mode=None if mode == "default" else mode)

    def fwd_bwd():
        F.cross_entropy(fwd(idx).float().view(-1, V), idx.view(-1)).backward()

    times = []
    for step in range(13):
        for p in model.parameters():
            p.grad = None
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); fwd_bwd(); e.record(); torch.cuda.synchronize()
        times.append(s.elapsed_time(e) / 1e3)
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fwd_bwd(); torch.cuda.synchronize()
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    row = {"model": name, "micro_batch_size": mbs, "mode": mode, "fwd_bwd_s": statistics.median(times[6:]),
           "kernels": len(kernels), "kernel_busy_s": sum(e.device_time for e in kernels) / 1e6}
    print(row, flush=True)
    torch._dynamo.reset()
    return row


def main(out):
    rows = [run(n, mbs, mode) for n in ("gpt3-125m", "gpt3-1.3b") for mbs in (1, 4)
            for mode in ("eager", "default", "reduce-overhead")]
    json.dump({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "method": __doc__.strip(), "rows": rows},
              open(out, "w"), indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
