"""Host/framework time per optimizer step of PyTorch-based training frameworks, beside the GPU kernels.
A GPT-style model of the GPT-3 1.3B shape (hidden 2048, 24 layers, 16 heads, vocabulary 50257, learned positions,
LayerNorm, tanh-GELU, tied embeddings), micro-batch 4 x seq 2048 of random token ids, fp32 parameters, bf16 compute,
fused fp32 AdamW, gradient clipping at 1.0, trains on one GPU with 4 micro-batches of gradient accumulation per
optimizer step and again with 1, under each of:
  plain     plain PyTorch loop, torch.autocast(bf16), fused AdamW, clip_grad_norm_ (the reference)
  plain_hf  the same plain loop around the Hugging Face GPT2LMHeadModel of the same shape (its modelling code alone)
  ddp       DistributedDataParallel (world size 1, nccl, default bucket_cap_mb 25), no_sync on all but the last micro-batch
  zero      DDP + torch.distributed.optim.ZeroRedundancyOptimizer(AdamW, fused=True where it accepts it)
  fsdp2     fully_shard on each block and the root, MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32),
            set_requires_gradient_sync(False) on all but the last micro-batch (no autocast: FSDP casts)
  hf        transformers Trainer on GPT2Config of the same shape (sdpa attention, dropout 0, its default activation
            gelu_new, i.e. NewGELUActivation, a PyTorch composite), bf16=True, optim adamw_torch_fused,
            max_grad_norm 1.0, logging off, report_to none, other arguments at their defaults
  lightning pytorch_lightning Trainer, precision "bf16-mixed", accumulate_grad_batches, gradient_clip_val 1.0, fused
            AdamW from configure_optimizers, on the same module as plain (Lightning's precision plugin refuses
            gradient_clip_val with a fused optimizer, so the LightningModule overrides configure_gradient_clipping
            with torch.nn.utils.clip_grad_norm_)
Each framework runs in its own python process (so that memory, CUDA and process-group state start clean); ddp,
zero and fsdp2 get RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 and a free MASTER_PORT; the others run as
a plain single-GPU script would. Every process gets NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
NVSHMEM_DISABLE_NVLS=1.
Timing: after warm-up steps, each steady step is bracketed by torch.cuda.synchronize() and a host clock (for hf and
lightning inside a TrainerCallback / Callback: on_step_begin/on_step_end, on_train_batch_start/on_train_batch_end);
wall per step is the median interval between consecutive step ends (so it includes data loading and whatever the
framework does between steps), inner wall the median begin->end of a step. CUDA events recorded right after each
micro-batch's backward returns (hf: around Trainer.training_step; lightning: on_train_batch_start/on_after_backward)
give forward+backward per micro-batch and the time after the last backward until the step ends (GPU timeline: clip,
optimizer, zero_grad, and any gap where the GPU waits for the host). Then torch.profiler records a few more steps;
from its trace the CUDA kernels (with memcpy/memset) give per step: kernel count, sum of durations and the union of
their intervals over all streams (GPU busy). Host/framework time per step beyond the GPU = wall - busy: the time in
which the GPU had nothing to run because the host (Python, the framework, launches, syncs) was behind it.
Run on one GPU: python3 bench/h200_framework_overheads.py OUT.json [plain plain_hf ddp zero fsdp2 hf lightning]
  (a framework named twice runs twice, the second as NAME_repeat, for the run-to-run spread)
  options: --dry (1 warm-up, 2 steady, 1 profiled step), --tiny (a small model on the CPU, for testing the script)
"""
import contextlib, gc, json, math, os, socket, subprocess, sys, tempfile, time, traceback

ALL = ["plain", "plain_hf", "ddp", "zero", "fsdp2", "hf", "lightning"]
NCCL_ENV = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}
os.environ.update(NCCL_ENV)
TINY = "--tiny" in sys.argv
DRY = "--dry" in sys.argv
if TINY:
    H, L, HEADS, V, SEQ, MBS = 64, 2, 4, 512, 64, 2
else:
    H, L, HEADS, V, SEQ, MBS = 2048, 24, 16, 50257, 2048, 4
WARM, STEADY, PROF = (1, 2, 1) if DRY else (3, 10, 2)
ACCUMS = [4, 1]


def med(xs):
    xs = sorted(xs)
    n = len(xs)
    if n == 0:
        return None
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


# ---------------------------------------------------------------- worker side ----------------------------------
def worker(name, out_path):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    cuda = torch.cuda.is_available() and not TINY
    dev = torch.device("cuda", 0) if cuda else torch.device("cpu")
    dt = "cuda" if cuda else "cpu"

    def sync():
        if cuda:
            torch.cuda.synchronize()

    class Mark:                                    # a CUDA event, or a host clock on the CPU
        def __init__(self):
            if cuda:
                self.e = torch.cuda.Event(enable_timing=True); self.e.record()
            else:
                self.t = time.perf_counter()

        def to(self, other):                       # seconds from self to other (both must have completed)
            return self.e.elapsed_time(other.e) / 1e3 if cuda else other.t - self.t

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = nn.LayerNorm(H); self.qkv = nn.Linear(H, 3 * H); self.proj = nn.Linear(H, H)
            self.ln2 = nn.LayerNorm(H); self.fc = nn.Linear(H, 4 * H); self.out = nn.Linear(4 * H, H)

        def forward(self, x):
            b, s, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).view(b, s, 3, HEADS, H // HEADS).permute(2, 0, 3, 1, 4)
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, s, H)
            x = x + self.proj(a)
            return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, H); self.pos = nn.Embedding(SEQ, H)
            self.blocks = nn.ModuleList(Block() for _ in range(L)); self.ln = nn.LayerNorm(H)

        def forward(self, idx):
            x = self.emb(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
            for blk in self.blocks:
                x = blk(x)
            return F.linear(self.ln(x), self.emb.weight)

    def gpt_loss(model, x):
        return F.cross_entropy(model(x).float().view(-1, V), x.view(-1))

    def hf_model():
        from transformers import GPT2Config, AutoModelForCausalLM
        cfg = GPT2Config(vocab_size=V, n_positions=SEQ, n_embd=H, n_layer=L, n_head=HEADS, resid_pdrop=0.0,
                         embd_pdrop=0.0, attn_pdrop=0.0, use_cache=False)
        with torch.device(dev):
            m = AutoModelForCausalLM.from_config(cfg, attn_implementation="sdpa", dtype=torch.float32)
        m.config.use_cache = False
        return m, {"config": "GPT2Config", "activation": cfg.activation_function,
                   "attn_implementation": m.config._attn_implementation, "dropout": 0.0}

    torch.manual_seed(0)
    ntok = (WARM + STEADY + PROF) * max(ACCUMS) * MBS
    cpu_tokens = torch.randint(0, V, (ntok, SEQ))
    if cuda:
        cpu_tokens = cpu_tokens.pin_memory()

    def batch(i):                                   # micro-batch i, copied to the GPU as a loader would
        j = (i * MBS) % ntok
        return cpu_tokens[j:j + MBS].to(dev, non_blocking=True)

    # ---- profiler trace -> kernels
    prof_state = {}

    def prof_start():
        from torch.profiler import profile, ProfilerActivity
        acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
        sync()
        prof_state["p"] = profile(activities=acts)
        prof_state["p"].start()
        prof_state["t0"] = time.perf_counter()

    def prof_stop(nsteps):
        sync()
        wall = time.perf_counter() - prof_state["t0"]
        p = prof_state.pop("p")
        p.stop()
        fd, path = tempfile.mkstemp(suffix=".json"); os.close(fd)
        try:
            p.export_chrome_trace(path)
            with open(path) as f:
                ev = json.load(f)
        finally:
            os.unlink(path)
        ev = ev.get("traceEvents", ev) if isinstance(ev, dict) else ev
        ker = [e for e in ev if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
        source = "chrome trace"
        if cuda and not ker:                        # fall back on the profiler's own event list
            source = "profiler events"
            for e in p.events():
                if e.device_type == torch.autograd.DeviceType.CUDA:
                    nm = e.name
                    cat = "gpu_memcpy" if nm.startswith("Memcpy") else "gpu_memset" if nm.startswith("Memset") else "kernel"
                    ker.append({"name": nm, "cat": cat, "ts": e.time_range.start, "dur": e.time_range.elapsed_us()})
        iv = sorted((float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0))) for e in ker)
        union, cur = 0.0, None
        for a, b in iv:
            if cur is None or a > cur[1]:
                if cur is not None:
                    union += cur[1] - cur[0]
                cur = [a, b]
            else:
                cur[1] = max(cur[1], b)
        if cur is not None:
            union += cur[1] - cur[0]
        kernels = [e for e in ker if e.get("cat") == "kernel"]
        nccl = [e for e in kernels if "nccl" in e.get("name", "").lower()]
        span = (iv[-1][1] - iv[0][0]) / 1e6 if iv else 0.0
        top = {}
        for e in kernels:
            top[e["name"]] = top.get(e["name"], 0.0) + float(e.get("dur", 0))
        top = sorted(top.items(), key=lambda kv: -kv[1])[:12]
        return {"profiled_steps": nsteps, "profiled_wall_per_step_s": wall / nsteps,
                "gpu_busy_union_per_step_s": union / 1e6 / nsteps,
                "gpu_kernel_sum_per_step_s": sum(float(e.get("dur", 0)) for e in ker) / 1e6 / nsteps,
                "kernels_per_step": len(kernels) / nsteps, "nccl_kernels_per_step": len(nccl) / nsteps,
                "memcpy_memset_per_step": (len(ker) - len(kernels)) / nsteps,
                "first_to_last_kernel_per_step_s": span / nsteps,
                "gpu_idle_between_first_and_last_kernel_per_step_s": (span - union / 1e6) / nsteps, "kernel_source": source,
                "top_kernels_us_per_step": [[n[:120], d / nsteps] for n, d in top]}

    def summarize(rec, accum, prof):
        """rec: list of dicts per step with t_begin, t_end (host), fb (list of micro-batch fwd+bwd s), after_bwd."""
        steady = [r for r in rec if r["step"] >= WARM][:STEADY]
        ends = [r["t_end"] for r in rec if r["step"] >= WARM - 1][:STEADY + 1]
        intervals = [b - a for a, b in zip(ends, ends[1:])]
        inner = [r["t_end"] - r["t_begin"] for r in steady]
        fb = [x for r in steady for x in r["fb"]]
        res = {"accum": accum, "steady_steps": len(steady),
               "wall_per_step_s": med(intervals), "inner_wall_per_step_s": med(inner),
               "steps_per_s": 1.0 / med(intervals) if intervals else None,
               "fwd_bwd_per_microbatch_s": med(fb), "after_backward_s": med([r["after_bwd"] for r in steady]),
               "intervals_s": intervals, "inner_s": inner, "after_backward_all_s": [r["after_bwd"] for r in steady],
               "fwd_bwd_all_s": fb}
        if prof:
            res.update(prof)
            if res["wall_per_step_s"] is not None:
                res["host_beyond_busy_s"] = res["wall_per_step_s"] - prof["gpu_busy_union_per_step_s"]
                res["inner_host_beyond_busy_s"] = res["inner_wall_per_step_s"] - prof["gpu_busy_union_per_step_s"]
        if cuda:
            res["max_memory_allocated_gib"] = torch.cuda.max_memory_allocated() / 2 ** 30
        return res

    # ---- a hand-written loop, shared by plain, plain_hf, ddp, zero, fsdp2
    def run_loop(model, opt, loss_fn, accum, autocast, no_sync=None, set_sync=None, clip_params=None):
        total = WARM + STEADY + PROF
        rec, prof = [], None
        mb = 0
        clip_params = clip_params if clip_params is not None else list(model.parameters())
        for step in range(total):
            if step == WARM + STEADY:
                prof_start()
            sync(); t0 = time.perf_counter()
            fb, last_bwd = [], None
            for m in range(accum):
                last = m == accum - 1
                x = batch(mb); mb += 1
                s = Mark()
                ctx = no_sync() if (no_sync is not None and not last) else contextlib.nullcontext()
                if set_sync is not None:
                    set_sync(last)
                with ctx:
                    with (torch.autocast(dt, dtype=torch.bfloat16) if autocast else contextlib.nullcontext()):
                        loss = loss_fn(model, x) / accum
                    loss.backward()
                last_bwd = Mark()
                fb.append((s, last_bwd))
            torch.nn.utils.clip_grad_norm_(clip_params, 1.0)
            opt.step()
            opt.zero_grad(set_to_none=True)
            end = Mark()
            sync(); t1 = time.perf_counter()
            rec.append({"step": step, "t_begin": t0, "t_end": t1, "fb": [a.to(b) for a, b in fb],
                        "after_bwd": last_bwd.to(end)})
            if step == total - 1:
                prof = prof_stop(PROF)
        return summarize(rec, accum, prof)

    def fused_adamw(params, **kw):
        try:
            return torch.optim.AdamW(params, lr=1e-4, fused=True, **kw), True
        except Exception as e:                         # noqa
            print("fused AdamW refused:", e, flush=True)
            return torch.optim.AdamW(params, lr=1e-4, **kw), False

    result = {"framework": name, "torch": torch.__version__, "device": torch.cuda.get_device_name() if cuda else "cpu",
              "shape": {"hidden": H, "layers": L, "heads": HEADS, "vocab": V, "seq": SEQ, "micro_batch": MBS},
              "warm": WARM, "steady": STEADY, "profiled": PROF, "runs": {}, "errors": {}}

    def dump():
        with open(out_path, "w") as f:
            json.dump(result, f, indent=1)

    def each_accum(fn):
        for accum in ACCUMS:
            try:
                if cuda:
                    torch.cuda.reset_peak_memory_stats()
                t = time.perf_counter()
                r = fn(accum)
                r["seconds_taken"] = time.perf_counter() - t
                result["runs"][str(accum)] = r
                print(f"[{name} accum {accum}] wall {r['wall_per_step_s']} busy {r.get('gpu_busy_union_per_step_s')} "
                      f"after_bwd {r['after_backward_s']} kernels {r.get('kernels_per_step')}", flush=True)
            except Exception:
                result["errors"][str(accum)] = traceback.format_exc()
                print(f"[{name} accum {accum}] FAILED\n" + traceback.format_exc(), flush=True)
            dump()
            gc.collect()
            if cuda:
                torch.cuda.empty_cache()

    dist_needed = name in ("ddp", "zero", "fsdp2")
    if dist_needed:
        import torch.distributed as dist
        dist.init_process_group("nccl" if cuda else "gloo", device_id=dev if cuda else None)
        result["world_size"] = dist.get_world_size()
        result["backend"] = dist.get_backend()
    if cuda:
        torch.cuda.set_device(0)

    try:
        if name == "plain":
            with torch.device(dev):
                model = GPT()
            result["params"] = sum(p.numel() for p in model.parameters())
            opt, fused = fused_adamw(model.parameters()); result["fused_adamw"] = fused
            each_accum(lambda a: run_loop(model, opt, gpt_loss, a, True))

        elif name == "plain_hf":
            model, info = hf_model(); result["model"] = info
            import transformers; result["transformers"] = transformers.__version__
            model.train()
            result["params"] = sum(p.numel() for p in model.parameters())
            opt, fused = fused_adamw(model.parameters()); result["fused_adamw"] = fused
            each_accum(lambda a: run_loop(model, opt, lambda m, x: m(input_ids=x, labels=x).loss, a, True))

        elif name in ("ddp", "zero"):
            from torch.nn.parallel import DistributedDataParallel as DDP
            with torch.device(dev):
                model = GPT()
            result["params"] = sum(p.numel() for p in model.parameters())
            ddp = DDP(model, device_ids=[0] if cuda else None)
            if name == "ddp":
                opt, fused = fused_adamw(ddp.parameters())
            else:
                from torch.distributed.optim import ZeroRedundancyOptimizer
                try:
                    opt = ZeroRedundancyOptimizer(ddp.parameters(), optimizer_class=torch.optim.AdamW, lr=1e-4, fused=True)
                    fused = True
                except Exception as e:
                    print("ZeRO with fused AdamW refused:", e, flush=True)
                    opt = ZeroRedundancyOptimizer(ddp.parameters(), optimizer_class=torch.optim.AdamW, lr=1e-4)
                    fused = False
            result["fused_adamw"] = fused
            each_accum(lambda a: run_loop(ddp, opt, gpt_loss, a, True, no_sync=ddp.no_sync))

        elif name == "fsdp2":
            from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy
            from torch.distributed.device_mesh import init_device_mesh
            mesh = init_device_mesh(dt, (1,))
            with torch.device(dev):
                model = GPT()
            result["params"] = sum(p.numel() for p in model.parameters())
            mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
            for blk in model.blocks:
                fully_shard(blk, mesh=mesh, mp_policy=mp)
            fully_shard(model, mesh=mesh, mp_policy=mp)
            opt, fused = fused_adamw(model.parameters()); result["fused_adamw"] = fused
            each_accum(lambda a: run_loop(model, opt, gpt_loss, a, False, set_sync=model.set_requires_gradient_sync))

        elif name == "hf":
            import transformers
            from transformers import Trainer, TrainingArguments, TrainerCallback
            result["transformers"] = transformers.__version__
            import accelerate; result["accelerate"] = accelerate.__version__
            model, info = hf_model(); result["model"] = info
            result["params"] = sum(p.numel() for p in model.parameters())

            class DS(torch.utils.data.Dataset):
                def __len__(self):
                    return ntok

                def __getitem__(self, i):
                    return {"input_ids": cpu_tokens[i].clone(), "labels": cpu_tokens[i].clone()}

            def run_hf(accum):
                total = WARM + STEADY + PROF
                st = {"rec": [], "fb": [], "prof": None, "step": 0}

                class TimedTrainer(Trainer):
                    def training_step(self, *a, **k):
                        s = Mark()
                        out = super().training_step(*a, **k)
                        st["fb"].append((s, Mark()))
                        return out

                class CB(TrainerCallback):
                    def on_step_begin(self, args, state, control, **kw):
                        if st["step"] == WARM + STEADY:
                            prof_start()
                        sync(); st["t0"] = time.perf_counter(); st["fb"] = []

                    def on_step_end(self, args, state, control, **kw):
                        end = Mark()
                        sync(); t1 = time.perf_counter()
                        st["rec"].append({"step": st["step"], "t_begin": st["t0"], "t_end": t1,
                                          "fb": [a.to(b) for a, b in st["fb"]], "after_bwd": st["fb"][-1][1].to(end)})
                        st["step"] += 1
                        if st["step"] == total:
                            st["prof"] = prof_stop(PROF)

                out_dir = tempfile.mkdtemp(prefix="hf_")
                args = TrainingArguments(output_dir=out_dir, per_device_train_batch_size=MBS,
                                         gradient_accumulation_steps=accum, bf16=True, max_steps=total,
                                         learning_rate=1e-4, max_grad_norm=1.0, optim="adamw_torch_fused",
                                         logging_strategy="no", save_strategy="no", eval_strategy="no",
                                         report_to="none", disable_tqdm=True, dataloader_num_workers=0, seed=0,
                                         use_cpu=not cuda)
                tr = TimedTrainer(model=model, args=args, train_dataset=DS(), callbacks=[CB()])
                tr.train()
                r = summarize(st["rec"], accum, st["prof"])
                r["trainer_args"] = {"optim": str(args.optim), "bf16": args.bf16, "lr_scheduler": str(args.lr_scheduler_type),
                                     "logging_nan_inf_filter": args.logging_nan_inf_filter,
                                     "dataloader_pin_memory": args.dataloader_pin_memory,
                                     "optimizer_class": type(tr.optimizer).__name__,
                                     "inner_optimizer": type(getattr(tr.optimizer, "optimizer", tr.optimizer)).__name__,
                                     "fused": getattr(tr.optimizer, "optimizer", tr.optimizer).defaults.get("fused"),
                                     "model_wrapped": type(tr.model_wrapped).__name__}
                del tr
                return r

            each_accum(run_hf)

        elif name == "lightning":
            import pytorch_lightning as pl
            result["pytorch_lightning"] = pl.__version__
            with torch.device(dev):
                model = GPT()
            result["params"] = sum(p.numel() for p in model.parameters())

            class Lit(pl.LightningModule):
                def __init__(self):
                    super().__init__()
                    self.model = model

                def training_step(self, b, i):
                    return gpt_loss(self.model, b[0])

                def configure_optimizers(self):
                    return fused_adamw(self.parameters())[0]

                # Lightning's MixedPrecision plugin refuses gradient_clip_val with a fused optimizer (it assumes the
                # optimizer unscales inside step, as for fp16); with bf16 there is no scaler, so clip here, the
                # same clip_grad_norm_ the other loops run, from the hook the Trainer calls for gradient_clip_val.
                def configure_gradient_clipping(self, optimizer, gradient_clip_val=None, gradient_clip_algorithm=None):
                    torch.nn.utils.clip_grad_norm_(self.parameters(), gradient_clip_val)

            lit = Lit()

            def run_pl(accum):
                total = WARM + STEADY + PROF
                st = {"rec": [], "fb": [], "prof": None, "step": 0}

                class CB(pl.Callback):
                    def on_train_batch_start(self, trainer, m, b, i):
                        if i % accum == 0:
                            if st["step"] == WARM + STEADY:
                                prof_start()
                            sync(); st["t0"] = time.perf_counter(); st["fb"] = []
                        st["s"] = Mark()

                    def on_after_backward(self, trainer, m):
                        st["fb"].append((st["s"], Mark()))

                    def on_train_batch_end(self, trainer, m, outputs, b, i):
                        if (i + 1) % accum == 0:
                            end = Mark()
                            sync(); t1 = time.perf_counter()
                            st["rec"].append({"step": st["step"], "t_begin": st["t0"], "t_end": t1,
                                              "fb": [a.to(b) for a, b in st["fb"]], "after_bwd": st["fb"][-1][1].to(end)})
                            st["step"] += 1
                            if st["step"] == total:
                                st["prof"] = prof_stop(PROF)

                ds = torch.utils.data.TensorDataset(cpu_tokens)
                dl = torch.utils.data.DataLoader(ds, batch_size=MBS, shuffle=False, num_workers=0, pin_memory=cuda)
                tr = pl.Trainer(accelerator="gpu" if cuda else "cpu", devices=1, precision="bf16-mixed",
                                accumulate_grad_batches=accum, gradient_clip_val=1.0, max_steps=total, max_epochs=1,
                                logger=False, enable_checkpointing=False, enable_progress_bar=False,
                                enable_model_summary=False, num_sanity_val_steps=0, limit_val_batches=0,
                                callbacks=[CB()], default_root_dir=tempfile.mkdtemp(prefix="pl_"))
                tr.fit(lit, dl)
                r = summarize(st["rec"], accum, st["prof"])
                r["trainer"] = {"strategy": type(tr.strategy).__name__, "precision": str(tr.precision),
                                "optimizer": type(tr.optimizers[0]).__name__,
                                "fused": tr.optimizers[0].defaults.get("fused")}
                del tr
                return r

            each_accum(run_pl)
        else:
            raise ValueError("unknown framework " + name)
    except Exception:
        result["errors"]["setup"] = traceback.format_exc()
        print(f"[{name}] FAILED\n" + traceback.format_exc(), flush=True)
    dump()
    if dist_needed:
        import torch.distributed as dist
        dist.destroy_process_group()


# ---------------------------------------------------------------- driver side ----------------------------------
def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close()
    return p


def table(res):
    hdr = ("framework", "acc", "step/s", "wall ms", "busy ms", "host>busy", "after-bwd", "fb/mb ms", "kernels")
    lines = ["%-12s %3s %7s %8s %8s %9s %9s %8s %8s" % hdr]
    f = lambda v, k=1e3: "-" if v is None else "%.1f" % (v * k)
    for name, r in res["frameworks"].items():
        for acc, x in sorted(r.get("runs", {}).items(), key=lambda kv: -int(kv[0])):
            lines.append("%-12s %3s %7s %8s %8s %9s %9s %8s %8s" % (
                name, acc, "-" if not x.get("steps_per_s") else "%.3f" % x["steps_per_s"], f(x.get("wall_per_step_s")),
                f(x.get("gpu_busy_union_per_step_s")), f(x.get("host_beyond_busy_s")), f(x.get("after_backward_s")),
                f(x.get("fwd_bwd_per_microbatch_s")), f(x.get("kernels_per_step"), 1)))
        for acc, e in r.get("errors", {}).items():
            lines.append("%-12s %3s FAILED: %s" % (name, acc, e.strip().splitlines()[-1][:100]))
    return "\n".join(lines)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    out, which = args[0], (args[1:] or ALL)
    budget = float(os.environ.get("BENCH_BUDGET_S", "210" if DRY else "540"))
    per = float(os.environ.get("BENCH_PER_FRAMEWORK_S", "90" if DRY else "200"))
    t_start = time.perf_counter()
    res = {"method": __doc__, "dry": DRY, "tiny": TINY, "frameworks": {}}
    try:
        import torch
        res["torch"] = torch.__version__
        res["gpu"] = torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu"
    except Exception:
        pass
    for name in which:
        key = name if name not in res["frameworks"] else name + "_repeat"   # a framework named twice: run-to-run spread
        left = budget - (time.perf_counter() - t_start)
        if left < 45:
            res["frameworks"][key] = {"errors": {"setup": "skipped: out of time budget\n"}}
            continue
        env = dict(os.environ, **NCCL_ENV, PYTHONUNBUFFERED="1", CUDA_VISIBLE_DEVICES=os.environ.get("CUDA_VISIBLE_DEVICES", "0"))
        for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
            env.pop(k, None)
        if name in ("ddp", "zero", "fsdp2"):
            env.update(RANK="0", WORLD_SIZE="1", LOCAL_RANK="0", LOCAL_WORLD_SIZE="1", MASTER_ADDR="127.0.0.1",
                       MASTER_PORT=str(free_port()))
        part = out + "." + key + ".part.json"
        flags = [a for a in sys.argv[1:] if a in ("--dry", "--tiny")]
        t = time.perf_counter()
        try:
            p = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", name, part] + flags, env=env,
                               timeout=min(per, left - 10))
            rc = p.returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
        try:
            with open(part) as f:
                r = json.load(f)
            os.unlink(part)
        except Exception:
            r = {"errors": {}}
        if rc != 0:
            r.setdefault("errors", {})["process"] = f"worker exit {rc}\n"
        r["process_seconds"] = time.perf_counter() - t
        res["frameworks"][key] = r
        with open(out, "w") as f:
            json.dump(res, f, indent=1)
        print(f"== {key} done in {r['process_seconds']:.0f} s (rc {rc})", flush=True)
    res["total_seconds"] = time.perf_counter() - t_start
    with open(out, "w") as f:
        json.dump(res, f, indent=1)
    print(table(res), flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 3 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3])
    else:
        main()
