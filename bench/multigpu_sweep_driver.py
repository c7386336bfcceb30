"""The multi-GPU training sweep of issue 24: plans it, cuts it into batches that each end inside one device command
(10 minutes), runs a batch run by run (torchrun, bench/multigpu_training_sweep.py), and writes, for every run that
trained, its log as printed, its true steady step beside it and a run file in the project's keys that names the log,
so that each run can be advised (train-advisor advise RUN.yaml) and its prediction error read against the truth.

The plan for N GPUs (default 8), per model (gpt3-1.3b at micro-batch size 4, llama-2-7b at 1; seq 2048):
  transport axis   ddp, zero1, fsdp2, tp, pp x p2p, shm, socket; micro-batches 4 (pp: 8), no recompute
  micro-batch axis ddp, zero1, fsdp2, tp x micro-batches 1, 2, 8 (pp: 1, 2, 4); p2p, no recompute
  recompute axis   ddp, zero1, fsdp2, tp x micro-batches 1, 4 (pp: 2, 8); p2p, recompute full
  size axis        gpt3-1.3b only: ddp, fsdp2 x micro-batch size 1, 2, 8 at micro-batches 4; p2p, no recompute
("micro-batches" is training.micro_batches, the micro-batches of one optimizer step; "micro-batch size" is
training.micro_batch_size.) Steps by the estimated step: 3 warm-up + 7 timed where a step is under 3 s, 2 + 4 under
10 s, 1 + 3 above. Each run's time is estimated from a guessed 350 TFLOP/s per GPU and guessed bus bandwidths (p2p 250,
shm 15, socket 2 GB/s), communication not overlapped, plus 25 s (35 s for the 7B) to start; runs are packed in plan
order into batches of at most --batch-seconds (default 480). A run is stopped at 3 x its estimate + 90 s, and a batch
stops starting runs once the next one's estimate would pass --batch-seconds x 1.15 since the batch began (what was not
started is listed, to be run with --only).
Outputs, in the layout of src/test/resources so that the archive can be unpacked there:
  OUTDIR/runs/pytorch-{N}xh200/NAME.yaml            the run file (log: ../../logs/pytorch-{N}xh200/NAME.log)
  OUTDIR/logs/pytorch-{N}xh200/NAME.log             the console as printed (torchrun's, rank filter as torchtitan's)
  OUTDIR/logs/pytorch-{N}xh200/NAME.truth.json      the truth (see bench/multigpu_training_sweep.py) plus the driver's
                                                    steady step, tokens/GPU/s, the log's median tps, exit code, wall
  OUTDIR/sweep-batch{K}.json                        the batch: each run's estimate, wall, exit code, steady step
  OUTDIR/machine.json                               GPUs, topology (nvidia-smi topo -m), driver, versions
  and --archive FILE.tar.gz of it all (the device tool brings back at most 8 files).
Run (x8 machine):  python3 bench/multigpu_sweep_driver.py --plan                (the batches and their estimates)
                   python3 bench/multigpu_sweep_driver.py OUTDIR --batch K --archive $OUT/sweep-K.tar.gz
                   python3 bench/multigpu_sweep_driver.py OUTDIR --only NAME,NAME ...
On 4 GPUs: --gpus 4 (tp 4, pp 4). To test the scripts: --gpus 1 --models tiny-gpt,tiny-llama (one GPU), or --cpu
--gpus 4 (gloo on the CPU: the multi-rank logic, no GPU numbers).
"""
import argparse, json, os, re, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import multigpu_common as C  # noqa: E402

MBS = {"gpt3-1.3b": 4, "llama-2-7b": 1, "tiny-gpt": 2, "tiny-llama": 2}
ZERO = {"ddp": 0, "zero1": 1, "fsdp2": 3, "tp": 0, "pp": 0}
BUSBW_GUESS = {"p2p": 250e9, "shm": 15e9, "socket": 2e9}
RATE_GUESS = 350e12
STEP_RE = re.compile(r"step:\s*(\d+)\s.*?tps:\s*([\d,]+)")


class Run:
    def __init__(self, gpus, model, par, transport, mbs, micro_batches, recompute, seq=2048):
        self.gpus, self.model, self.par, self.transport = gpus, model, par, transport
        self.mbs, self.micro_batches, self.recompute, self.seq = mbs, micro_batches, recompute, seq
        self.name = (f"pytorch-{gpus}xh200-{model}-{par}-{transport}-b{mbs}x{micro_batches}"
                     + ("-recompute" if recompute == "full" else ""))
        self.step_s = self.estimate_step()
        w, t = (3, 7) if self.step_s < 3 else (2, 4) if self.step_s < 10 else (1, 3)
        self.warmup, self.steps = w, w + t
        self.start_s = 35 if "7b" in model else 25
        self.est_s = self.start_s + self.steps * self.step_s + 8

    def estimate_step(self):
        cfg = C.preset(self.model)
        n, bw = self.gpus, BUSBW_GUESS[self.transport]
        P = C.params_of(cfg)
        tok_mb = self.mbs * self.seq
        f_tok = C.model_flops_per_token(cfg, self.seq, self.recompute)
        h, L = cfg["hidden"], cfg["layers"]
        ring = 2 * (n - 1) / n if n > 1 else 0
        part = (n - 1) / n if n > 1 else 0
        M = self.micro_batches
        if self.par in ("ddp", "zero1", "fsdp2"):
            compute = M * tok_mb * f_tok / RATE_GUESS
            comm = ring * 4 * P / bw
            if self.par == "zero1":
                comm += part * 4 * P / bw
            if self.par == "fsdp2":
                comm = part * (2 * 2 * P * M + 4 * P) / bw
        elif self.par == "tp":
            compute = M * tok_mb * f_tok / RATE_GUESS / n
            per_layer = (6 if self.recompute == "full" else 4) * ring * tok_mb * h * 2 / bw
            comm = M * (L * per_layer + 2 * ring * tok_mb * h * 2 / bw)
        else:                                        # pp
            stage = tok_mb * f_tok / RATE_GUESS / n
            compute = (M + n - 1) * stage
            comm = (2 * M * tok_mb * h * 4 / bw) if n > 1 else 0
        return compute + comm + 0.02

    def args(self, outdir, cpu):
        return ["--name", self.name, "--out", outdir, "--model", self.model, "--par", self.par,
                "--transport", self.transport, "--mbs", str(self.mbs), "--micro-batches", str(self.micro_batches),
                "--recompute", self.recompute, "--seq", str(self.seq), "--warmup", str(self.warmup),
                "--steps", str(self.steps)] + (["--cpu"] if cpu else [])


def plan(gpus, models, seq):
    runs = []
    for model in models:
        b = MBS.get(model, 1)
        for par in ("ddp", "zero1", "fsdp2", "tp", "pp"):
            mt = 8 if par == "pp" else 4
            for t in ("p2p", "shm", "socket"):
                runs.append(Run(gpus, model, par, t, b, mt, "none", seq))
            for m in ((1, 2, 4) if par == "pp" else (1, 2, 8)):
                runs.append(Run(gpus, model, par, "p2p", b, m, "none", seq))
            for m in ((2, 8) if par == "pp" else (1, 4)):
                runs.append(Run(gpus, model, par, "p2p", b, m, "full", seq))
        if model.startswith("gpt"):
            for par in ("ddp", "fsdp2"):
                for mb in (1, 2, 8):
                    runs.append(Run(gpus, model, par, "p2p", mb, 4, "none", seq))
    return runs


def batches(runs, limit):
    out, cur, t = [], [], 0.0
    for r in runs:
        if cur and t + r.est_s > limit:
            out.append(cur)
            cur, t = [], 0.0
        cur.append(r)
        t += r.est_s
    if cur:
        out.append(cur)
    return out


def steady(truth, warmup):
    """The median of the end-to-end step intervals after the warm-up (step s's interval: end of s-1 to end of s)."""
    ends = truth.get("step_ends", [])
    iv = [(i + 2, ends[i + 1] - ends[i]) for i in range(len(ends) - 1)]
    keep = [x for s, x in iv if s > warmup]
    return C.med(keep), len(keep)


def log_tps(path, warmup):
    vals = []
    try:
        with open(path, errors="replace") as f:
            for line in f:
                m = STEP_RE.search(line)
                if m and int(m.group(1)) > warmup:
                    vals.append(float(m.group(2).replace(",", "")))
    except OSError:
        pass
    return C.med(vals), len(vals)


def yaml_scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def flow(d):
    return "{" + ", ".join(f"{k}: {yaml_scalar(v)}" for k, v in d.items()) + "}"


def run_file(r, truth, link, sub, batch):
    cfg = C.preset(r.model)
    n = r.gpus
    tied = truth.get("tied_embeddings", cfg.get("tied_embeddings", False))
    model = {k: cfg[k] for k in ("layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab", "gated_mlp")
             if k in cfg}
    model["vocab"] = truth.get("vocab", model["vocab"])            # padded for tensor parallelism where needed
    model = {"name": cfg["name"], **model, "tied_embeddings": tied,
             "qkv_bias": cfg.get("norm") == "layernorm" or bool(cfg.get("qkv_bias")),
             "norm": cfg.get("norm"), "position_embedding": cfg.get("position_embedding")}
    tp, pp = truth.get("tp", 1), truth.get("pp", 1)
    par = {"dp": truth.get("dp", n), "tp": tp, "pp": pp, "zero_stage": ZERO[r.par]}
    if r.par in ("ddp", "zero1", "fsdp2"):
        par["grad_reduce_every_micro_batch"] = False
    if r.par == "tp":
        par["sequence_parallel"] = False                # Megatron's layout without sequence parallelism
    intra = {"link": link, "transport": r.transport}
    probe = truth.get("allreduce_probe") or {}
    if probe.get("busbw_gbps"):
        intra["busbw_gbps"] = round(probe["busbw_gbps"], 1)
    training = {"seq_len": r.seq, "micro_batch_size": r.mbs, "micro_batches": r.micro_batches,
                "recompute": r.recompute, "precision": "bf16", "grad_reduce_precision": "fp32",
                "framework": "pytorch", "optimizer_kernel": "fused" if "fused" in truth.get("optimizer", "")
                else "foreach", "elementwise_kernels": "eager"}
    if r.par in ("tp", "pp"):
        training.pop("grad_reduce_precision")
    s = truth.get("steady_step_s")
    how = {"ddp": "DistributedDataParallel (no_sync on all but the last micro-batch), autocast bf16 over fp32 "
                  "parameters, fused AdamW",
           "zero1": "DDP + ZeroRedundancyOptimizer(AdamW fused): one broadcast per parameter from its owner after "
                    "the step",
           "fsdp2": "fully_shard per block and the root, MixedPrecisionPolicy(bf16, reduce fp32), gradients reduced "
                    "on the last micro-batch only",
           "tp": "tensor parallelism over all GPUs (column/row-wise Linear, vocabulary-parallel embedding and output "
                 "with loss_parallel, no sequence parallelism), embeddings untied, autocast bf16",
           "pp": f"pipeline parallelism over all GPUs ({truth.get('schedule', '?')}, layers split evenly), "
                 "embeddings untied, autocast bf16"}[r.par]
    switches = " ".join(f"{k}={v}" for k, v in C.TRANSPORTS[r.transport].items()) or "NCCL default"
    lines = [
        f"# Issue 24's PyTorch sweep on one host of {n} H200 (bench/multigpu_sweep_driver.py batch {batch}; torch "
        f"{truth.get('torch', '?')}, NCCL {truth.get('nccl', '?')}): {cfg['name']} built in plain PyTorch",
        f"# (bench/multigpu_common.py), {how}; micro-batch {r.mbs} x {r.micro_batches}, seq {r.seq}, recompute "
        f"{r.recompute}, transport {r.transport} ({switches}).",
        "# busbw_gbps: the all-reduce bus bandwidth this run's communicator measured at its start (512 MiB fp32)."
        if "busbw_gbps" in intra else "# No bus bandwidth was measured (one GPU).",
        f"# The log is the run's console as printed (torchtitan's line format); its true steady step is in "
        f"{r.name}.truth.json beside it:",
        f"# {s:.4f} s ({truth.get('steady_tokens_per_gpu_per_s', 0):.0f} tokens/GPU/s); the log's median tps after "
        f"warm-up {truth.get('log_median_tps', 0):.0f}." if s else "# no steady step was measured.",
        f"name: {r.name}",
        "cluster: {gpu: H200-SXM-141GB, nodes: 1, gpus_per_node: %d,\n          intra_node: %s}" % (n, flow(intra)),
        f"model: {flow(model)}",
        f"parallel: {flow(par)}",
        f"training: {flow(training)}",
        f"log: ../../logs/{sub}/{r.name}.log",
    ]
    return "\n".join(lines) + "\n"


def launch(r, outdir, cpu, timeout):
    log_rank = r.gpus - 1 if r.par == "pp" else 0
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={r.gpus}",
           "--local-ranks-filter", str(log_rank), "--role", "rank", "--tee", "3",
           os.path.join(os.path.dirname(os.path.abspath(__file__)), "multigpu_training_sweep.py")] + r.args(outdir, cpu)
    env = C.launch_env(r.transport, {"OMP_NUM_THREADS": "1"} if cpu else None)
    t = time.time()
    with open(os.path.join(outdir, r.name + ".log"), "w") as log:
        try:
            rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    return rc, time.time() - t


def topo_link(info, default):
    """NVLink4 when nvidia-smi topo -m joins the GPUs by NV# links; else the default, with a warning."""
    topo = info.get("topo_m", "")
    if re.search(r"\bNV\d+\b", topo):
        return default
    print(f"warning: nvidia-smi topo -m shows no NV# link between GPUs; the run files still say {default} "
          f"(set --link): {topo[:400]!r}", flush=True)
    return default


def main(a):
    models = a.models.split(",")
    runs = plan(a.gpus, models, a.seq)
    if a.only:
        want = set(a.only.split(","))
        unknown = want - {r.name for r in runs}
        if unknown:
            sys.exit(f"--only: not in the plan: {sorted(unknown)}; --plan lists the names")
        runs = [r for r in runs if r.name in want]
        groups = [runs]
    else:
        groups = batches(runs, a.batch_seconds)
    if a.plan or a.outdir is None:
        tot = 0
        for k, g in enumerate(groups, 1):
            est = sum(r.est_s for r in g)
            tot += est
            print(f"batch {k}: {len(g)} runs, estimated {est:.0f} s")
            for r in g:
                print(f"   {r.name:70s} step ~{r.step_s:7.2f} s x {r.steps:2d} (warm-up {r.warmup}) -> {r.est_s:6.0f} s")
        print(f"{sum(len(g) for g in groups)} runs in {len(groups)} batches, estimated {tot / 60:.0f} min of device time")
        return
    if not a.only and not (1 <= a.batch <= len(groups)):
        sys.exit(f"--batch: 1 to {len(groups)} for this plan (--plan lists them)")
    todo = runs if a.only else groups[a.batch - 1]
    batch = "only" if a.only else a.batch
    out = os.path.abspath(a.outdir)
    sub = f"pytorch-{a.gpus}xh200" + ("-cpu" if a.cpu else "")
    logs = os.path.join(out, "logs", sub)
    rdir = os.path.join(out, "runs", sub)
    os.makedirs(logs, exist_ok=True)
    os.makedirs(rdir, exist_ok=True)
    info = C.machine()
    with open(os.path.join(out, "machine.json"), "w") as f:
        json.dump(info, f, indent=1)
    link = topo_link(info, a.link)
    t0 = time.time()
    report = {"batch": batch, "gpus": a.gpus, "method": __doc__, "runs": {}, "not_started": []}
    for r in todo:
        if time.time() - t0 + r.est_s > a.batch_seconds * 1.15 and report["runs"]:
            report["not_started"].append(r.name)
            continue
        rc, wall = launch(r, logs, a.cpu, timeout=3 * r.est_s + 90)
        rec = {"estimate_s": round(r.est_s), "wall_s": round(wall, 1), "exit_code": rc}
        tpath = os.path.join(logs, r.name + ".truth.json")
        try:
            with open(tpath) as f:
                truth = json.load(f)
        except (OSError, ValueError) as e:
            truth = None
            rec["error"] = f"no truth file: {e!r}"
        if truth is not None:
            s, n = steady(truth, r.warmup)
            tokens = r.mbs * r.micro_batches * r.seq * truth.get("dp", 1)     # per step, all replicas
            truth["steady_step_s"] = s
            truth["steady_steps"] = n
            truth["steady_tokens_per_gpu_per_s"] = tokens / s / r.gpus if s else None
            tps, ntps = log_tps(os.path.join(logs, r.name + ".log"), r.warmup)
            truth["log_median_tps"] = tps
            truth["exit_code"] = rc
            truth["wall_s"] = wall
            with open(tpath, "w") as f:
                json.dump(truth, f, indent=1)
            rec.update({"steady_step_s": s, "steady_steps": n,
                        "tokens_per_gpu_per_s": truth["steady_tokens_per_gpu_per_s"], "log_median_tps": tps,
                        "log_steps": ntps, "busbw_gbps": (truth.get("allreduce_probe") or {}).get("busbw_gbps")})
            if "error" in truth:
                rec["error"] = truth["error"].strip().splitlines()[-1][:300]
            if s and ntps >= 3:
                with open(os.path.join(rdir, r.name + ".yaml"), "w") as f:
                    f.write(run_file(r, truth, link, sub, batch))
                rec["run_file"] = f"runs/{sub}/{r.name}.yaml"
        report["runs"][r.name] = rec
        print(r.name, json.dumps(rec), flush=True)
        with open(os.path.join(out, f"sweep-batch{batch}.json"), "w") as f:
            json.dump(report, f, indent=1)
    report["wall_s"] = round(time.time() - t0, 1)
    with open(os.path.join(out, f"sweep-batch{batch}.json"), "w") as f:
        json.dump(report, f, indent=1)
    if report["not_started"]:
        print("not started (run them with --only):", ",".join(report["not_started"]), flush=True)
    if a.archive:
        print("archive:", C.pack(out, a.archive), flush=True)


def args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("outdir", nargs="?")
    p.add_argument("--gpus", type=int, default=8)
    p.add_argument("--models", default="gpt3-1.3b,llama-2-7b")
    p.add_argument("--seq", type=int, default=2048)
    p.add_argument("--batch", type=int, default=0)
    p.add_argument("--batch-seconds", type=float, default=480)
    p.add_argument("--only", help="comma-separated run names from --plan, run as one batch")
    p.add_argument("--plan", action="store_true")
    p.add_argument("--link", default="NVLink4", help="the run files' cluster.intra_node.link")
    p.add_argument("--cpu", action="store_true", help="gloo on the CPU: tests the multi-rank logic only")
    p.add_argument("--archive")
    return p.parse_args(argv)


if __name__ == "__main__":
    main(args(sys.argv[1:]))
