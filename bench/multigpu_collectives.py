"""Collectives on 2, 4 and 8 GPUs of one host, by kind, size and NCCL transport, as PyTorch issues them; and the same
traffic as PyTorch's frameworks issue it (ZeroRedundancyOptimizer._sync_params, FSDP2's per-unit all-gather), so that
the step model's per-call latency (alpha), per-call overhead and ZeRO-1's broadcast pattern come from measurement
(issue 24; knowledge-base/links.json alpha_us, knowledge-base/nccl-tuning.json, knowledge-base/frameworks/pytorch.json).

Launches (one torchrun per GPU count and transport; two passes each, see below):
  transports  p2p     NCCL's default (peer-to-peer over NVLink)
              shm     NCCL_P2P_DISABLE=1 (staged through host shared memory)
              socket  NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 (NCCL's socket transport)
  every launch NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 (NVLink multicast off)
Operations (fp32 unless --dtype; "size" S is nccl-tests' size: the whole buffer, so that algbw = S / time for all):
  all_reduce       dist.all_reduce, in place, S bytes                        busbw = algbw x 2(n-1)/n
  reduce_scatter   dist.reduce_scatter_tensor, S in, S/n out                 busbw = algbw x (n-1)/n
  all_gather       dist.all_gather_into_tensor, S/n in, S out                busbw = algbw x (n-1)/n
  broadcast        dist.broadcast from root r, for each r in turn (a row per root)   busbw = algbw
  broadcast_seq    ZeRO-1's pattern: n broadcasts of S/n, root 0, 1, ... n-1, back to back, timed as one
                   (the same bytes as an all-gather of S)                    busbw = algbw x (n-1)/n
  reduce           dist.reduce to root 0, in place                           busbw = algbw
  all_to_all       dist.all_to_all_single, S in, S out                       busbw = algbw x (n-1)/n
  sendrecv         each rank sends S to rank+1 and receives S from rank-1 (batch_isend_irecv), as nccl-tests'
                   sendrecv_perf                                              busbw = algbw
  send_one_way     rank 0 sends S to rank 1, the others idle (a pipeline's activation send)   busbw = algbw
  The factors are nccl-tests' (https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md; docs/logs.md).
Timing pass (NCCL quiet): for each op and size, a warm-up call; one timed call (a second, after it, where the first
took under 0.1 s) whose time, the maximum over ranks (an all-reduce MAX, so that every rank issues the same number of
calls), sets iters = clamp(target / t, 1, 200); then 3 repeats of iters back-to-back calls between CUDA events on the
calling stream, each after a barrier (broadcast from roots other than 0 only up to --roots-max-bytes); a rank's
time per call is the median repeat / iters; time_us is the mean over ranks (nccl-tests' default -a 1), time_us_max
the slowest rank. host_us is the host's time to issue one call (perf_counter around the loop, before the
synchronize): the per-call overhead a small collective pays where the GPU would be faster than the host.
Tuning pass (a second launch, NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING, NCCL_DEBUG_FILE per process): every op
and size once, untimed (its INFO lines would slow a timed call); NCCL's lines "AllReduce: 4096 Bytes -> Algo RING
proto LL channel{Lo..Hi}={0..1}" give each row's algorithm, protocol and channels, its "Channel .. via P2P/..|SHM/..|
NET/Socket/.." lines the transport each launch really took, and its init table each algorithm's latency and
bandwidth estimate. (NCCL prints no tuning line for send/recv and all-to-all, which are grouped point-to-point.)
Frameworks, in the timing pass, on each model preset --fw-model names (default gpt3-1.3b; llama-2-7b too with
--fw-model gpt3-1.3b,llama-2-7b), built in plain PyTorch (bench/multigpu_common.py):
  zero_sync_params      ZeroRedundancyOptimizer(AdamW) over the fp32 model; opt._sync_params() (torch 2.11,
                        zero_redundancy_optimizer.py: one dist.broadcast per parameter from its owning rank, then a
                        wait on all) between CUDA events, with parameters_as_bucket_view False (the default) and True
                        (one broadcast per rank); the calls issued and bytes per rank recorded, beside broadcast_seq
                        and all_gather of the same bytes
  fsdp2_unit_all_gather fully_shard per block and the root, MixedPrecisionPolicy(param_dtype=bf16); one forward and
                        backward to initialise; then block k's unshard() (all-gather into the unsharded bf16
                        parameters, copy-in and copy-out included) between CUDA events, then reshard(); for the first,
                        middle and last block; beside all_gather of the same bf16 bytes
Outputs in OUTDIR: collectives-n{N}-{transport}.json per launch (rows, framework rows, machine, NCCL's tuning lines
joined to the rows), nccl/tuning-n{N}-{transport}.log (NCCL's INFO lines as printed), nccl-tests/
{op}_perf-n{N}-{transport}.txt (the rows in nccl-tests' layout, out-of-place columns only, which the project's
parser reads: a run file can name one with cluster.intra_node.nccl_tests), summary.json (per launch and op: alpha
(the time of the smallest sizes), a least-squares fit time = a + S / B over sizes up to 1 MiB and the bus bandwidth
of the largest size), and OUTDIR.tar.gz of it all.
Run (x8 machine): python3 bench/multigpu_collectives.py OUTDIR [--gpus 2,4,8] [--transports p2p,shm,socket]
      [--min-bytes 4K] [--max-bytes 4G] [--ops all_reduce,...] [--part NAME] [--no-tuning] [--no-frameworks]
      [--plan] [--archive FILE.tar.gz] [--cpu] (gloo on the CPU: tests the multi-rank logic, no GPU numbers)
  Several commands may write into one OUTDIR (summary.json gathers them); a launch split by --ops needs a --part
  name so that its files do not replace the other part's. --plan prints each launch's estimated seconds.
The worker is the same file, started by torchrun with --worker.
"""
import argparse, json, os, subprocess, sys, time, traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import multigpu_common as C  # noqa: E402  (sets NVLink multicast off in this process)

OPS = ["all_reduce", "reduce_scatter", "all_gather", "broadcast", "broadcast_seq", "reduce", "all_to_all", "sendrecv",
       "send_one_way"]
FACTOR = {  # nccl-tests' bus bandwidth factors (n ranks)
    "all_reduce": lambda n: 2 * (n - 1) / n, "reduce_scatter": lambda n: (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n, "broadcast": lambda n: 1.0, "broadcast_seq": lambda n: (n - 1) / n,
    "reduce": lambda n: 1.0, "all_to_all": lambda n: (n - 1) / n, "sendrecv": lambda n: 1.0,
    "send_one_way": lambda n: 1.0,
}
NCCL_FUNC = {"all_reduce": "AllReduce", "reduce_scatter": "ReduceScatter", "all_gather": "AllGather",
             "broadcast": "Broadcast", "broadcast_seq": "Broadcast", "reduce": "Reduce"}
# Bytes NCCL prints for a call of size S over n ranks (count x type size; all-gather's count is the send count,
# reduce-scatter's the receive count; broadcast_seq's calls are S/n each)
NCCL_BYTES = {"all_reduce": lambda s, n: s, "reduce_scatter": lambda s, n: s // n, "all_gather": lambda s, n: s // n,
              "broadcast": lambda s, n: s, "broadcast_seq": lambda s, n: s // n, "reduce": lambda s, n: s}


def parse_bytes(s):
    s = s.strip().upper().rstrip("B")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(s[:-1]) * mult[s[-1]]) if s and s[-1] in mult else int(s)


def sizes(lo, hi):
    out, s = [], lo
    while s <= hi:
        out.append(s)
        s *= 2
    return out


# ------------------------------------------------------------------ worker ------------------------------------------
def worker(a):
    import torch
    import torch.distributed as dist
    cpu = a.cpu
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", 0))
    dev = torch.device("cpu") if cpu else torch.device("cuda", local)
    if not cpu:
        torch.cuda.set_device(dev)
    from datetime import timedelta
    dist.init_process_group("gloo" if cpu else "nccl", timeout=timedelta(minutes=15),
                            **({} if cpu else {"device_id": dev}))
    dtype = getattr(torch, a.dtype)
    esize = torch.tensor([], dtype=dtype).element_size()
    result = {"pass": a.pass_, "world_size": world, "transport": a.transport, "backend": dist.get_backend(),
              "dtype": a.dtype, "device": "cpu" if cpu else torch.cuda.get_device_name(dev), "rows": [],
              "frameworks": [], "errors": [], "env": {k: os.environ.get(k) for k in
                                                      ("NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "NCCL_NVLS_ENABLE",
                                                       "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS",
                                                       "NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_ALGO", "NCCL_PROTO")}}
    if rank == 0:
        result["machine"] = C.machine()

    def sync():
        if not cpu:
            torch.cuda.synchronize()

    class Clock:                                   # CUDA events on the calling stream, or the host clock on the CPU
        def __init__(self):
            if cpu:
                self.t = time.perf_counter()
            else:
                self.e = torch.cuda.Event(enable_timing=True)
                self.e.record()

        def to(self, other):
            return other.t - self.t if cpu else self.e.elapsed_time(other.e) / 1e3

    def allmax(x):
        t = torch.tensor([float(x)], device=dev, dtype=torch.float64)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return float(t.item())

    def gather_floats(x):                           # every rank's value, on every rank
        t = torch.tensor([float(x)], device=dev, dtype=torch.float64)
        out = [torch.zeros_like(t) for _ in range(world)]
        dist.all_gather(out, t)
        return [float(o.item()) for o in out]

    szs = sizes(a.min_bytes, a.max_bytes)
    top = max(szs)
    n_el = top // esize
    buf_a = torch.ones(n_el, dtype=dtype, device=dev)
    buf_b = torch.zeros(n_el, dtype=dtype, device=dev)
    nxt, prv = (rank + 1) % world, (rank - 1) % world

    def op_fn(op, s, root=0):
        """A callable issuing one call of op at size s, or None where it does not apply at this world size."""
        c = s // esize
        if op == "all_reduce":
            t = buf_a[:c]
            return lambda: dist.all_reduce(t)
        if op == "reduce_scatter":
            i, o = buf_a[:c], buf_b[:c // world]
            return lambda: dist.reduce_scatter_tensor(o, i)
        if op == "all_gather":
            i, o = buf_a[:c // world], buf_b[:c]
            return lambda: dist.all_gather_into_tensor(o, i)
        if op == "broadcast":
            t = buf_a[:c]
            return lambda: dist.broadcast(t, src=root)
        if op == "broadcast_seq":
            parts = [buf_a[r * (c // world):(r + 1) * (c // world)] for r in range(world)]

            def f():
                hs = [dist.broadcast(p, src=r, async_op=True) for r, p in enumerate(parts)]
                for h in hs:
                    h.wait()
            return f
        if op == "reduce":
            t = buf_a[:c]
            return lambda: dist.reduce(t, dst=0)
        if op == "all_to_all":
            i, o = buf_a[:c], buf_b[:c]
            return lambda: dist.all_to_all_single(o, i)
        if op == "sendrecv":
            if world < 2:
                return None
            i, o = buf_a[:c], buf_b[:c]

            def f():
                for w in dist.batch_isend_irecv([dist.P2POp(dist.isend, i, nxt), dist.P2POp(dist.irecv, o, prv)]):
                    w.wait()
            return f
        if op == "send_one_way":
            if world < 2:
                return None
            i, o = buf_a[:c], buf_b[:c]
            if rank == 0:
                return lambda: dist.send(i, dst=1)
            if rank == 1:
                return lambda: dist.recv(o, src=0)
            return lambda: None
        raise ValueError(op)

    def timed(fn, target_s):
        """(seconds per call on this rank, host seconds to issue one call, iters): see the docstring."""
        fn()                                        # warm-up (the probe below is a second one)
        sync()
        dist.barrier()
        s0 = Clock(); fn(); s1 = Clock(); sync()
        if allmax(s0.to(s1)) < 0.1:                 # short calls: one more warm-up, the probe again
            dist.barrier()
            s0 = Clock(); fn(); s1 = Clock(); sync()
        est = allmax(max(s0.to(s1), 1e-6))
        iters = int(max(1, min(a.max_iters, target_s // est if est > 0 else a.max_iters)))
        per, host = [], []
        for _ in range(3):
            dist.barrier()
            sync()
            e0 = Clock(); h0 = time.perf_counter()
            for _ in range(iters):
                fn()
            h1 = time.perf_counter(); e1 = Clock(); sync()
            per.append(e0.to(e1) / iters)
            host.append((h1 - h0) / iters)
        return C.med(per), C.med(host), iters

    def row(op, s, root, t, host, iters):
        ts = gather_floats(t)
        hs = gather_floats(host)
        # send_one_way: the receiver's time (the idle ranks' zero would dilute a mean); else nccl-tests' mean
        mean_t = max(ts) if op == "send_one_way" else sum(ts) / len(ts)
        algbw = s / mean_t / 1e9 if mean_t > 0 else None
        return {"op": op, "bytes": s, "count": s // esize, "root": root, "iters": iters,
                "time_us": mean_t * 1e6, "time_us_max": max(ts) * 1e6, "time_us_by_rank": [x * 1e6 for x in ts],
                "host_us": sum(hs) / len(hs) * 1e6, "algbw_gbps": algbw,
                "busbw_gbps": algbw * FACTOR[op](world) if algbw is not None else None}

    def dump():
        if rank == 0:
            with open(a.out, "w") as f:
                json.dump(result, f, indent=1)

    ops = [o for o in a.ops.split(",") if o]
    t_start = time.time()
    for op in ops:
        for s in szs:
            if s // esize < world or (s // esize) % world:
                continue
            roots = range(world) if op == "broadcast" and s <= a.roots_max_bytes else [0]
            for root in roots:
                fn = op_fn(op, s, root)
                if fn is None:
                    continue
                try:
                    if a.pass_ == "tuning":
                        fn(); sync()
                        if rank == 0:
                            result["rows"].append({"op": op, "bytes": s, "root": root})
                    else:
                        t, host, iters = timed(fn, a.target_ms / 1e3)
                        r = row(op, s, root, t, host, iters)
                        if rank == 0:
                            result["rows"].append(r)
                            print(f"[n{world} {a.transport}] {op:14s} {s:>12d} B root {root}: {r['time_us']:10.1f} us "
                                  f"algbw {r['algbw_gbps']:8.2f} busbw {r['busbw_gbps']:8.2f} GB/s "
                                  f"host {r['host_us']:6.1f} us x{iters}", flush=True)
                except Exception:
                    result["errors"].append({"op": op, "bytes": s, "root": root, "error": traceback.format_exc()[-2000:]})
                    if rank == 0:
                        print(f"[n{world} {a.transport}] {op} {s} FAILED\n{traceback.format_exc()}", flush=True)
                    if not cpu:
                        raise                       # an NCCL error leaves the communicator unusable
        dump()
    result["ops_seconds"] = time.time() - t_start
    del buf_a, buf_b
    if not cpu:
        torch.cuda.empty_cache()

    if a.pass_ == "timing" and a.frameworks:
        for m in a.fw_model.split(","):
            frameworks(a, m, result, dev, cpu, rank, world, Clock, sync, gather_floats)
    dump()
    dist.barrier()
    dist.destroy_process_group()


def frameworks(a, fw_model, result, dev, cpu, rank, world, Clock, sync, gather_floats):
    """ZeroRedundancyOptimizer._sync_params and FSDP2's per-unit all-gather on one model (see the module docstring)."""
    import torch
    import torch.distributed as dist
    cfg = C.preset(fw_model)
    reps = 5

    def time_call(fn, warm=2):
        for _ in range(warm):
            fn()
        sync()
        per, host = [], []
        for _ in range(reps):
            dist.barrier(); sync()
            e0 = Clock(); h0 = time.perf_counter()
            fn()
            h1 = time.perf_counter(); e1 = Clock(); sync()
            per.append(e0.to(e1)); host.append(h1 - h0)
        t, h = C.med(per), C.med(host)
        ts = gather_floats(t)
        return {"time_us": sum(ts) / len(ts) * 1e6, "time_us_max": max(ts) * 1e6, "host_us": h * 1e6}

    def raw(op, nbytes, dtype):                   # the plain collective of the same bytes, for comparison
        esz = torch.tensor([], dtype=dtype).element_size()
        c = (nbytes // esz) // world * world
        i = torch.ones(c // world if op == "all_gather" else c, dtype=dtype, device=dev)
        o = torch.empty(c, dtype=dtype, device=dev)
        if op == "all_gather":
            f = lambda: dist.all_gather_into_tensor(o, i)   # noqa: E731
        else:                                      # broadcast_seq
            parts = [i[r * (c // world):(r + 1) * (c // world)] for r in range(world)]

            def f():
                hs = [dist.broadcast(p, src=r, async_op=True) for r, p in enumerate(parts)]
                for h in hs:
                    h.wait()
        r = time_call(f)
        r.update({"bytes": c * esz, "busbw_gbps": c * esz / (r["time_us"] / 1e6) / 1e9 * (world - 1) / world})
        del i, o
        return r

    # ---- ZeroRedundancyOptimizer._sync_params
    for bucket_view in (False, True):
        name = f"zero_sync_params{'_bucket_view' if bucket_view else ''}"
        try:
            from torch.distributed.optim import ZeroRedundancyOptimizer
            torch.manual_seed(0)
            with torch.device(dev):
                model = C.build_model(cfg, a.fw_seq)
            C.init_weights(model)
            opt = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.AdamW, lr=1e-4,
                                          parameters_as_bucket_view=bucket_view)
            # _partition_parameters(): one list of param groups (dicts with "params") per rank, element r for rank r
            # (zero_redundancy_optimizer.py, torch 2.11); _sync_params broadcasts rank r's from rank r
            parts = opt._partition_parameters()
            per_rank = [[p for g in parts[r] for p in g["params"]] for r in range(world)]
            calls = [len(ps) if not bucket_view else 1 for ps in per_rank]
            nbytes = [sum(p.numel() * p.element_size() for p in ps) for ps in per_rank]
            r = time_call(opt._sync_params)
            total = sum(nbytes)
            r.update({"name": name, "model": fw_model, "parameters_as_bucket_view": bucket_view,
                      "broadcasts_per_rank": calls, "bytes_per_rank": nbytes, "bytes": total,
                      "parameter_tensors": sum(len(ps) for ps in per_rank),
                      "busbw_gbps_as_all_gather": total / (r["time_us"] / 1e6) / 1e9 * (world - 1) / world,
                      "note": "busbw counted as an all-gather of all parameter bytes (each rank receives (n-1)/n)"})
            del opt, model, parts, per_rank
            if not cpu:
                torch.cuda.empty_cache()
            r["same_bytes_all_gather"] = raw("all_gather", total, torch.float32)
            r["same_bytes_broadcast_seq"] = raw("broadcast_seq", total, torch.float32)
            result["frameworks"].append(r)
            if rank == 0:
                print(f"[n{world} {a.transport}] {name}: {r['time_us']:.0f} us for {total / 1e9:.3f} GB in "
                      f"{sum(calls)} broadcasts (all_gather of the same bytes {r['same_bytes_all_gather']['time_us']:.0f}"
                      f" us, broadcast_seq {r['same_bytes_broadcast_seq']['time_us']:.0f} us)", flush=True)
        except Exception:
            result["errors"].append({"framework": name, "error": traceback.format_exc()[-3000:]})
            if rank == 0:
                print(f"{name} FAILED\n{traceback.format_exc()}", flush=True)

    # ---- FSDP2 per-unit all-gather
    name = "fsdp2_unit_all_gather"
    try:
        from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy
        from torch.distributed.device_mesh import init_device_mesh
        torch.manual_seed(0)
        mesh = init_device_mesh("cpu" if cpu else "cuda", (world,))
        with torch.device(dev):
            model = C.build_model(cfg, a.fw_seq)
        C.init_weights(model)
        mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
        blocks = list(model.layers.values())
        for b in blocks:
            fully_shard(b, mesh=mesh, mp_policy=mp)
        fully_shard(model, mesh=mesh, mp_policy=mp)
        x = torch.randint(0, cfg["vocab"], (1, min(128, a.fw_seq)), device=dev)
        model(x).float().mean().backward()          # lazy initialisation of every unit
        model.zero_grad(set_to_none=True)
        sync()
        for k in sorted({0, len(blocks) // 2, len(blocks) - 1}):
            b = blocks[k]
            nb = sum(p.numel() for p in b.parameters()) * 2   # the unit's bf16 bytes, unsharded

            def f(b=b):
                b.unshard()
                b.reshard()

            def g(b=b):                             # the gather alone, reshard outside the events
                b.unshard()
            r = time_call(f)
            # unshard alone: events around unshard(), reshard after the closing event
            per = []
            for _ in range(reps):
                dist.barrier(); sync()
                e0 = Clock(); g(); e1 = Clock(); sync()
                per.append(e0.to(e1)); b.reshard()
            ts = gather_floats(C.med(per))
            r.update({"name": name, "model": fw_model, "block": k, "bytes": nb,
                      "unshard_time_us": sum(ts) / len(ts) * 1e6, "unshard_time_us_max": max(ts) * 1e6,
                      "busbw_gbps": nb / (sum(ts) / len(ts)) / 1e9 * (world - 1) / world,
                      "note": "time_us: unshard()+reshard() between events; unshard_time_us: unshard() alone "
                              "(copy-in, all-gather, copy-out); bytes: the unit's parameters in bf16"})
            r["same_bytes_all_gather"] = raw("all_gather", nb, torch.bfloat16)
            result["frameworks"].append(r)
            if rank == 0:
                print(f"[n{world} {a.transport}] {name} block {k}: unshard {r['unshard_time_us']:.0f} us for "
                      f"{nb / 1e6:.1f} MB (all_gather of the same bytes {r['same_bytes_all_gather']['time_us']:.0f} us)",
                      flush=True)
        del model
    except Exception:
        result["errors"].append({"framework": name, "error": traceback.format_exc()[-3000:]})
        if rank == 0:
            print(f"{name} FAILED\n{traceback.format_exc()}", flush=True)


# ------------------------------------------------------------------ driver ------------------------------------------
def estimate_s(n, transport, ops, szs, frameworks, target_ms, roots_max):
    """Seconds one launch pair takes, for planning: 40 s of start-up and init for both passes, plus per op and size
    about 7 x target or, where a call takes longer, 5 calls at a guessed bus bandwidth (p2p 250, shm 15, socket
    2 GB/s), and 60 s for the frameworks."""
    bw = {"p2p": 250e9, "shm": 15e9, "socket": 2.0e9}[transport]
    total = 40.0
    for op in ops:
        for s in szs:
            roots = n if op == "broadcast" and s <= roots_max else 1
            call = 30e-6 + s * max(FACTOR[op](n), 1.0) / bw
            total += roots * max(7 * target_ms / 1e3, 5 * call) + call * roots   # + the tuning pass' call
    return total + (60 if frameworks else 0)


def summarize(res):
    """Per op: alpha (the mean time of the three smallest sizes), a fit time = a + S / B over sizes up to 1 MiB,
    and the bus bandwidth at the largest size and the peak."""
    out = {}
    by = {}
    for r in res["rows"]:
        if r.get("time_us") is None:
            continue
        by.setdefault((r["op"], r.get("root", 0)), []).append(r)
    for (op, root), rows in sorted(by.items()):
        rows.sort(key=lambda r: r["bytes"])
        small = [r for r in rows if r["bytes"] <= (1 << 20)]
        fit = None
        if len(small) >= 3:
            xs = [r["bytes"] for r in small]; ys = [r["time_us"] for r in small]
            mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
            sxx = sum((x - mx) ** 2 for x in xs)
            b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0
            fit = {"intercept_us": my - b * mx, "us_per_byte": b,
                   "algbw_gbps_from_slope": 1e-3 / b if b > 0 else None, "sizes": len(small)}
        busbws = [r["busbw_gbps"] for r in rows if r.get("busbw_gbps") is not None]
        out[f"{op}" + (f"@root{root}" if op == "broadcast" else "")] = {
            "alpha_us": sum(r["time_us"] for r in rows[:3]) / min(3, len(rows)),
            "alpha_sizes": [r["bytes"] for r in rows[:3]],
            "host_us_small": sum(r["host_us"] for r in rows[:3]) / min(3, len(rows)),
            "fit_upto_1MiB": fit, "largest_bytes": rows[-1]["bytes"],
            "busbw_gbps_largest": rows[-1].get("busbw_gbps"), "busbw_gbps_peak": max(busbws) if busbws else None,
            "algo_proto": sorted({f"{r.get('nccl_algo')}/{r.get('nccl_proto')}" for r in rows if r.get("nccl_algo")})}
    return out


def join_tuning(timing, tuning_calls, n):
    """Each timed row gets the algorithm and protocol NCCL chose for a call of its op and bytes (the first seen)."""
    seen = {}
    for c in tuning_calls:
        if c.get("func") and c.get("algo"):
            seen.setdefault((c["func"], c["bytes"]), c)
    for r in timing["rows"]:
        f = NCCL_FUNC.get(r["op"])
        if not f:
            continue
        c = seen.get((f, NCCL_BYTES[r["op"]](r["bytes"], n)))
        if c:
            r["nccl_algo"], r["nccl_proto"] = c["algo"], c.get("proto")
            if c.get("channels") is not None:
                r["nccl_channels"] = c["channels"]


def nccl_tests_text(res, op, machine_info):
    """The rows of op in nccl-tests' layout (out-of-place columns only), which the project's NcclTests parser reads."""
    n = res["world_size"]
    rows = sorted((r for r in res["rows"] if r["op"] == op and r.get("root", 0) == 0 and r.get("time_us")),
                  key=lambda r: r["bytes"])
    if not rows:
        return None
    L = [f"# written by bench/multigpu_collectives.py in nccl-tests' {op}_perf layout: torch.distributed on NCCL "
         f"{machine_info.get('nccl', '?')}, transport {res['transport']}, out-of-place columns only; "
         f"time is the mean over ranks of each rank's median per-call time; {n} processes, one GPU each",
         f"# minBytes {rows[0]['bytes']} maxBytes {rows[-1]['bytes']} step: 2(factor) warmup iters: 2 "
         f"validation: 0 graph: 0", "#", "# Using devices"]
    dev = res.get("device", "?")
    for r in range(n):
        L.append(f"#  Rank {r:2d} Group  0 Pid      0 on localhost device {r:2d} [0x00] {dev}")
    L += ["#", "#                                                              out-of-place",
          "#       size         count      type   redop    root     time   algbw   busbw #wrong",
          "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)"]
    redop = {"all_reduce": "sum", "reduce_scatter": "sum", "reduce": "sum"}.get(op, "none")
    root = {"broadcast": "0", "reduce": "0", "broadcast_seq": "0"}.get(op, "-1")
    busbws = []
    for r in rows:
        L.append(f"{r['bytes']:12d}  {r['count']:12d}  {res['dtype']:>8s}  {redop:>6s}  {root:>6s}  "
                 f"{fmt(r['time_us'], 7)}  {fmt(r['algbw_gbps'], 6)}  {fmt(r['busbw_gbps'], 6)}     N/A")
        busbws.append(r["busbw_gbps"])
    L += [f"# Out of bounds values : 0 OK", f"# Avg bus bandwidth    : {sum(busbws) / len(busbws):.4f}", "#"]
    return "\n".join(L) + "\n"


def fmt(x, w):
    for f in ("%.2f", "%.1f", "%.0f", "%.1e"):
        s = f % x
        if len(s) <= w:
            return s.rjust(w)
    return ("%.0e" % x).rjust(w)


def tag_of(n, transport, part):
    return f"n{n}-{transport}" + (f"-{part}" if part else "")


def launch(a, n, transport, pass_, out_json, log_path, nccl_dir=None):
    extra = {}
    if pass_ == "tuning":
        os.makedirs(nccl_dir, exist_ok=True)
        extra = {"NCCL_DEBUG": "INFO", "NCCL_DEBUG_SUBSYS": "INIT,TUNING",
                 "NCCL_DEBUG_FILE": os.path.join(nccl_dir, "nccl.%h.%p.log")}
    env = C.launch_env(transport, extra)
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={n}",
           os.path.abspath(__file__), "--worker", "--pass", pass_, "--out", out_json, "--transport", transport,
           "--min-bytes", str(a.min_bytes), "--max-bytes", str(a.max_bytes), "--ops", a.ops, "--dtype", a.dtype,
           "--target-ms", str(a.target_ms), "--roots-max-bytes", str(a.roots_max_bytes),
           "--max-iters", str(a.max_iters), "--fw-model", a.fw_model, "--fw-seq", str(a.fw_seq)]
    cmd += (["--cpu"] if a.cpu else []) + ([] if a.frameworks else ["--no-frameworks"])
    if a.cpu:
        env["OMP_NUM_THREADS"] = "1"
    t = time.time()
    with open(log_path, "w") as log:
        log.write("$ " + " ".join(f"{k}={v}" for k, v in sorted(C.TRANSPORTS[transport].items())) + " "
                  + " ".join(cmd) + "\n")
        log.flush()
        try:
            rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, timeout=a.launch_timeout).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    return rc, time.time() - t


def main(a):
    out = os.path.abspath(a.outdir)
    os.makedirs(os.path.join(out, "nccl"), exist_ok=True)
    os.makedirs(os.path.join(out, "nccl-tests"), exist_ok=True)
    ops = [o for o in a.ops.split(",") if o]
    szs = sizes(a.min_bytes, a.max_bytes)
    plan = [(n, t) for n in a.gpus for t in a.transports]
    est = {tag_of(n, t, a.part): estimate_s(n, t, ops, szs, a.frameworks, a.target_ms, a.roots_max_bytes)
           for n, t in plan}
    print("plan (estimated seconds per launch pair):", json.dumps(est), "total", round(sum(est.values())), flush=True)
    if a.plan:
        return
    spath = os.path.join(out, "summary.json")
    summary = {"method": __doc__, "launches": {}, "estimates_s": {}}
    if os.path.exists(spath):                       # a later part of the same measurement adds to it
        with open(spath) as f:
            summary = json.load(f)
    summary["estimates_s"].update(est)
    for n, t in plan:
        tag = tag_of(n, t, a.part)
        res_path = os.path.join(out, f"collectives-{tag}.json")
        rec = {}
        tuning_calls, via, version, table = [], {}, None, []
        if a.tuning:
            tj = os.path.join(out, f"tuning-{tag}.json")
            ndir = os.path.join(out, "nccl", "tmp-" + tag)
            rc, wall = launch(a, n, t, "tuning", tj, os.path.join(out, f"tuning-{tag}.console.log"), ndir)
            rec["tuning_rc"], rec["tuning_wall_s"] = rc, round(wall, 1)
            text = ""
            if os.path.isdir(ndir):
                for fn in sorted(os.listdir(ndir)):
                    with open(os.path.join(ndir, fn), errors="replace") as f:
                        text += f"==> {fn} <==\n" + f.read()
                with open(os.path.join(out, "nccl", f"tuning-{tag}.log"), "w") as f:
                    f.write(text)
                for fn in os.listdir(ndir):
                    os.unlink(os.path.join(ndir, fn))
                os.rmdir(ndir)
            p = C.parse_nccl_log(text)
            tuning_calls, via, version, table = p["calls"], p["via"], p["version"], p["tuning_table"]
            if os.path.exists(tj):
                os.unlink(tj)
        rc, wall = launch(a, n, t, "timing", res_path, os.path.join(out, f"collectives-{tag}.console.log"))
        rec.update({"timing_rc": rc, "timing_wall_s": round(wall, 1)})
        try:
            with open(res_path) as f:
                res = json.load(f)
        except Exception as e:                      # noqa: BLE001
            rec["error"] = f"no result: {e!r}"
            summary["launches"][tag] = rec
            print(tag, rec, flush=True)
            continue
        join_tuning(res, tuning_calls, n)
        res["nccl_tuning"] = {"version": version, "via": via, "calls": tuning_calls[:5000], "table": table}
        with open(res_path, "w") as f:
            json.dump(res, f, indent=1)
        for op in ops:
            txt = nccl_tests_text(res, op, res.get("machine", {}))
            if txt:
                with open(os.path.join(out, "nccl-tests", f"{op}_perf-{tag}.txt"), "w") as f:
                    f.write(txt)
        rec.update({"ops": summarize(res), "frameworks": res.get("frameworks", []), "errors": len(res["errors"]),
                    "transport_seen": sorted(via), "nccl": version})
        summary["launches"][tag] = rec
        with open(spath, "w") as f:
            json.dump(summary, f, indent=1)
        print(tag, json.dumps({k: rec[k] for k in ("timing_rc", "timing_wall_s", "errors", "transport_seen")}),
              flush=True)
    with open(spath, "w") as f:
        json.dump(summary, f, indent=1)
    if a.archive:
        print("archive:", C.pack(out, a.archive), flush=True)


def args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("outdir", nargs="?")
    p.add_argument("--worker", action="store_true")
    p.add_argument("--pass", dest="pass_", default="timing", choices=["timing", "tuning"])
    p.add_argument("--out")
    p.add_argument("--transport", default="p2p", choices=list(C.TRANSPORTS))
    p.add_argument("--gpus", default="2,4,8", type=lambda s: [int(x) for x in s.split(",")])
    p.add_argument("--transports", default="p2p,shm,socket", type=lambda s: s.split(","))
    p.add_argument("--min-bytes", default=4096, type=parse_bytes)
    p.add_argument("--max-bytes", default=4 << 30, type=parse_bytes)
    p.add_argument("--ops", default=",".join(OPS))
    p.add_argument("--dtype", default="float32")
    p.add_argument("--target-ms", default=20.0, type=float, help="time of each of the 3 timed repeats of a size")
    p.add_argument("--max-iters", default=200, type=int)
    p.add_argument("--roots-max-bytes", default=256 << 20, type=parse_bytes,
                   help="broadcast from every root up to this size, from root 0 alone above it")
    p.add_argument("--part", default="", help="a name for this part of a measurement split by --ops (file names)")
    p.add_argument("--fw-model", default="gpt3-1.3b", help="model presets, comma-separated, for the framework rows")
    p.add_argument("--fw-seq", default=2048, type=int)
    p.add_argument("--no-frameworks", dest="frameworks", action="store_false")
    p.add_argument("--no-tuning", dest="tuning", action="store_false")
    p.add_argument("--cpu", action="store_true", help="gloo on the CPU: tests the multi-rank logic only")
    p.add_argument("--plan", action="store_true", help="print the launches and their estimated seconds, run nothing")
    p.add_argument("--launch-timeout", default=590, type=int)
    p.add_argument("--archive", help="pack OUTDIR into this .tar.gz at the end")
    a = p.parse_args(argv)
    for o in a.ops.split(","):
        if o and o not in OPS:
            p.error(f"--ops: unknown op {o!r}; known: {','.join(OPS)}")
    if not a.worker and not a.outdir:
        p.error("OUTDIR is required")
    return a


if __name__ == "__main__":
    a = args(sys.argv[1:])
    worker(a) if a.worker else main(a)
