"""What CPU offload costs on an H200 host (16 cores): the host's memory bandwidth, PyTorch's AdamW on the CPU, and
pinned copies between the GPU and the host.

1. Host memory bandwidth: a STREAM-like triad a = b + s * c over fp32 tensors of 2 GiB each with torch on the CPU at
   16, 8, 4 and 1 threads (bytes counted: 3 x 4 per element), median of 5 after 1 warm-up.
2. Host AdamW: torch.optim.AdamW (foreach, the default on CPU; and the single-tensor loop) over fp32 parameters of a
   1.3B model held as 24 x 4 tensors of 2048 x 2048 x ... (1.3e9 elements), gradients set, at 16, 8 and 4 threads:
   seconds a step, parameters a second, and the bytes of the four fp32 tensors it reads (param, grad, exp_avg,
   exp_avg_sq) and the three it writes, per second. Median of 3 steps after 1 warm-up.
3. Copies: device -> pinned host and pinned host -> device of 64 MiB to 1 GiB (and pageable host memory at 1 GiB),
   CUDA events, median of 10 after 2 warm-up.
Run on one GPU: python3 bench/h200_host_offload.py OUT.json
"""
import json, os, statistics, sys, time
import torch

RESULT = {"gpu": None, "torch": torch.__version__, "cpu_count": os.cpu_count(), "method": __doc__}


def save(path):
    json.dump(RESULT, open(path, "w"), indent=1)


def wall(fn, warm, reps):
    for _ in range(warm):
        fn()
    out = []
    for _ in range(reps):
        t = time.perf_counter(); fn(); out.append(time.perf_counter() - t)
    return statistics.median(out)


def triad(path):
    rows = []
    n = 512 * 1024 * 1024          # 2 GiB of fp32 each
    a, b, c = torch.empty(n), torch.rand(n), torch.rand(n)
    for threads in (16, 8, 4, 1):
        torch.set_num_threads(threads)
        s = wall(lambda: torch.add(b, c, alpha=3.0, out=a), 1, 5 if threads > 1 else 2)
        rows.append({"threads": threads, "seconds": s, "gbps": 3 * 4 * n / s / 1e9})
        RESULT["triad"] = rows
        save(path)
    del a, b, c


def adamw(path):
    rows = []
    torch.manual_seed(0)
    # 1.3B fp32 parameters in 96 tensors (the 4 big matrices of 24 layers of a 2048-wide GPT), plus gradients
    shapes = [(2048, 6144), (2048, 2048), (8192, 2048), (2048, 8192)] * 24
    params = [torch.nn.Parameter(torch.randn(s) * 0.02) for s in shapes]
    for p in params:
        p.grad = torch.randn_like(p) * 1e-3
    count = sum(p.numel() for p in params)
    RESULT["adamw_params"] = count
    for foreach in (True, False):
        for threads in ((16, 8, 4) if foreach else (16,)):
            torch.set_num_threads(threads)
            opt = torch.optim.AdamW(params, lr=1e-4, foreach=foreach)
            s = wall(opt.step, 1, 3)
            rows.append({"foreach": foreach, "threads": threads, "seconds_per_step": s, "params_per_s": count / s,
                         "gbps_of_fp32_state": 7 * 4 * count / s / 1e9})
            RESULT["adamw"] = rows
            save(path)
            del opt
    del params


def copies(path):
    rows = []
    dev = torch.cuda.current_device()
    for mib in (64, 256, 1024):
        n = mib * 1024 * 1024 // 4
        d = torch.empty(n, device="cuda")
        for pinned in ((True, False) if mib == 1024 else (True,)):
            h = torch.empty(n, pin_memory=pinned)
            for direction in ("d2h", "h2d"):
                def go():
                    if direction == "d2h":
                        h.copy_(d, non_blocking=pinned)
                    else:
                        d.copy_(h, non_blocking=pinned)
                for _ in range(2):
                    go()
                torch.cuda.synchronize()
                times = []
                for _ in range(10):
                    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    e0.record(); go(); e1.record(); torch.cuda.synchronize()
                    times.append(e0.elapsed_time(e1) / 1e3)
                s = statistics.median(times)
                rows.append({"mib": mib, "pinned": pinned, "direction": direction, "seconds": s,
                             "gbps": mib * 1024 * 1024 / s / 1e9})
                RESULT["copies"] = rows
                save(path)
        del d


def main(path):
    RESULT["gpu"] = torch.cuda.get_device_name(0)
    for part in (copies, triad, adamw):
        try:
            part(path)
        except Exception as e:  # keep what the others measured
            RESULT.setdefault("errors", []).append(part.__name__ + ": " + repr(e)[:300])
            save(path)
    save(path)
    print(json.dumps({k: v for k, v in RESULT.items() if k != "method"}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1])
