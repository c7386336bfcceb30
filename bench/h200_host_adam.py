"""The host's AdamW as offload runs it, on the H200 machine's host: by implementation, by thread count, and shared by the
ranks of a node, bound to their own cores or not.

1. One process, the three PyTorch CPU paths of torch.optim.AdamW: the single-tensor loop (what FSDP's CPU offload
   runs: torch/optim/optimizer.py _default_to_fused_or_foreach picks foreach only for CUDA tensors), foreach, and the
   fused CPU kernel (fused=True, a vectorised single pass over param, grad, exp_avg and exp_avg_sq, as DeepSpeed's
   CPUAdam is), over 0.30e9 fp32 parameters in 24 tensors, at 16, 8, 4, 2 and 1 threads; median of 3 steps after one
   warm-up; parameters a second.
2. Ranks sharing the host: N = 2, 4, 8 processes start together, each updating its 1/N shard of 1.2e9 parameters (as
   ZeRO's ranks of one node do), either bound (each process on its own 16/N cores, os.sched_setaffinity, and
   16/N threads) or unbound (every process with all 16 cores and torch's default thread count, as a launch without
   core binding leaves them); the step of the slowest rank, median of 3 steps, all ranks stepping together between
   barriers; the node's parameters a second.
3. DeepSpeed's DeepSpeedCPUAdam, where deepspeed is installed and its op builds here.
Run: python3 bench/h200_host_adam.py OUT.json
"""
import json, multiprocessing as mp, os, platform, statistics, subprocess, sys, time

RESULT = {"method": __doc__, "cpu_count": os.cpu_count()}


def save(path):
    json.dump(RESULT, open(path, "w"), indent=1)


def tensors(torch, total, pieces):
    n = total // pieces
    ps = []
    for _ in range(pieces):
        p = torch.nn.Parameter(torch.empty(n).fill_(0.02))
        p.grad = torch.empty(n).fill_(1e-3)
        ps.append(p)
    return ps, n * pieces


def make(torch, ps, kind):
    if kind == "deepspeed-cpuadam":
        from deepspeed.ops.adam import DeepSpeedCPUAdam
        return DeepSpeedCPUAdam(ps, lr=1e-4, adamw_mode=True)
    return torch.optim.AdamW(ps, lr=1e-4, foreach=(kind == "foreach"), fused=(True if kind == "fused" else None))


def single(path):
    import torch
    ps, count = tensors(torch, 300_000_000, 24)
    rows = []
    for kind in ("single-tensor", "foreach", "fused"):
        for threads in (16, 8, 4, 2, 1):
            torch.set_num_threads(threads)
            opt = make(torch, ps, kind)
            opt.step()
            times = []
            for _ in range(3):
                t = time.perf_counter(); opt.step(); times.append(time.perf_counter() - t)
            s = statistics.median(times)
            rows.append({"kind": kind, "threads": threads, "params": count, "seconds_per_step": s,
                         "params_per_s": count / s})
            RESULT["one_process"] = rows
            save(path)
            del opt


def worker(rank, n, bound, kind, barrier, out):
    cores = os.cpu_count()
    if bound:
        per = cores // n
        os.sched_setaffinity(0, set(range(rank * per, (rank + 1) * per)))
    import torch
    torch.set_num_threads(cores // n if bound else cores)
    ps, count = tensors(torch, 1_200_000_000 // n, 8)
    opt = make(torch, ps, kind)
    opt.step()
    times = []
    for _ in range(3):
        barrier.wait()
        t = time.perf_counter(); opt.step(); times.append(time.perf_counter() - t)
    barrier.wait()
    out.put((rank, count, times))


def shared(path):
    rows = []
    ctx = mp.get_context("spawn")
    for kind in ("single-tensor", "fused"):
        for n in (2, 4, 8):
            for bound in (True, False):
                barrier, out = ctx.Barrier(n), ctx.Queue()
                procs = [ctx.Process(target=worker, args=(r, n, bound, kind, barrier, out)) for r in range(n)]
                for p in procs: p.start()
                got = [out.get(timeout=300) for _ in range(n)]
                for p in procs: p.join()
                steps = [max(g[2][i] for g in got) for i in range(3)]
                s = statistics.median(steps)
                total = sum(g[1] for g in got)
                rows.append({"kind": kind, "ranks": n, "bound": bound, "threads_per_rank": 16 // n if bound else 16,
                             "params_per_node": total, "seconds_per_step": s, "params_per_s": total / s})
                RESULT["ranks_sharing_the_host"] = rows
                save(path)


def deepspeed(path):
    try:
        import torch
        torch.set_num_threads(16)
        ps, count = tensors(torch, 300_000_000, 24)
        opt = make(torch, ps, "deepspeed-cpuadam")
        opt.step()
        times = []
        for _ in range(3):
            t = time.perf_counter(); opt.step(); times.append(time.perf_counter() - t)
        s = statistics.median(times)
        RESULT["deepspeed_cpuadam"] = {"threads": 16, "params": count, "seconds_per_step": s, "params_per_s": count / s}
    except Exception as e:
        RESULT["deepspeed_cpuadam"] = {"not_run": repr(e)[:300]}
    save(path)


def main(path):
    import torch
    RESULT["torch"] = torch.__version__
    try:
        RESULT["lscpu"] = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout[:3000]
    except Exception as e:
        RESULT["lscpu"] = repr(e)
    try:
        RESULT["meminfo"] = open("/proc/meminfo").read()[:200]
    except Exception as e:
        RESULT["meminfo"] = repr(e)
    save(path)
    for part in (single, shared, deepspeed):
        try:
            part(path)
        except Exception as e:
            RESULT.setdefault("errors", []).append(part.__name__ + ": " + repr(e)[:300])
            save(path)
    print(json.dumps({k: v for k, v in RESULT.items() if k not in ("method", "lscpu")}, indent=1))
    print(RESULT.get("lscpu", ""))


if __name__ == "__main__":
    main(sys.argv[1])
