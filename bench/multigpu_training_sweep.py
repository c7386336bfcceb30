"""One training run of the multi-GPU sweep (issue 24), started by bench/multigpu_sweep_driver.py under torchrun, one
process a GPU: a GPT- or Llama-shaped model built in plain PyTorch from a catalogue preset (bench/multigpu_common.py;
nothing downloaded), trained on random token ids with PyTorch's own parallelisms only:
  ddp     DistributedDataParallel (bucket_cap_mb 25, the default; gradient_as_bucket_view=True), no_sync() on all but
          the last micro-batch; torch.autocast(bf16) over fp32 parameters; fused AdamW
  zero1   ddp + torch.distributed.optim.ZeroRedundancyOptimizer(AdamW, fused=True) (one broadcast per parameter
          from its owner after the step: parameters_as_bucket_view False, the default)
  fsdp2   fully_shard per block and the root, MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32),
          set_requires_gradient_sync(False) on all but the last micro-batch, no autocast (FSDP casts), fused AdamW
  tp      torch.distributed.tensor.parallel over all GPUs (dp 1): wq/wk/wv and the MLP's first matrices column-wise,
          wo and the MLP's last row-wise (Megatron's layout, no sequence parallelism), the embedding row-wise
          (vocabulary-parallel; a vocabulary that tp does not divide padded to a multiple of 128 x tp, as Megatron
          pads it: gpt3-1.3b's 50257 to 51200 at tp 8), the output column-wise with loss_parallel(); autocast(bf16);
          embeddings untied
  pp      torch.distributed.pipelining over all GPUs (dp 1): layers split evenly, the embedding on the first stage and
          the final norm and output on the last; Schedule1F1B (ScheduleGPipe where 1F1B refuses the micro-batch count)
          with the run's micro-batches; autocast(bf16); embeddings untied
  recompute full: every block wrapped in checkpoint_wrapper (torch.utils.checkpoint, non-reentrant) before the
          parallelism is applied (torchtitan's order)
Every step: micro-batches of micro_batch_size x seq random ids (a fresh generator per data-parallel rank), forward,
cross-entropy in fp32, backward; gradient clipping at 1.0 by the global norm (the squared norms of sharded gradients
all-reduced over their group, pipeline stages' summed); the optimizer step; the loss averaged over data-parallel ranks.
The log: on one rank (rank 0; the last stage under pp, which holds the loss), torchtitan's lines as its
MetricsProcessor.log prints them (torchtitan/components/metrics.py at b5bcd76: "step: N  loss: L  grad_norm: G
memory: M GiB(P%)  tps: T  tflops: F  mfu: U%", "[titan] <asctime> - root - INFO - " before each), every step, with
tps = this rank's tokens since the last line / (seconds since the last line x the non-data-parallel size), tflops by
torchtitan's FLOPs count and mfu against its H200 peak (989 TFLOP/s), the peak reserved memory since the last line;
and torchtitan's start line of March 2025 with the gradient-accumulation clause the project's parser reads
("Training starts at step 1, with local batch size B, global batch size G, gradient accumulation steps A, sequence
length S, total steps T (warmup 0)"; the learning rate is constant). The driver starts torchrun as torchtitan's
run_train.sh does (--local-ranks-filter LOG_RANK --role rank --tee 3), so each line carries "[rankN]:".
The truth, outside the log (NAME.truth.json, written by rank 0 and the log rank): each step bracketed by
torch.cuda.synchronize() and perf_counter (step_begins, step_ends), and CUDA events on the default stream around it
(event_step_s); per-rank medians; the all-reduce bus bandwidth of the run's own communicator measured before
training (512 MiB fp32, 2 warm-up + 5 timed calls), which the run file's busbw_gbps takes.
Run: torchrun ... bench/multigpu_training_sweep.py --name NAME --out DIR --model gpt3-1.3b --par ddp --transport p2p
     --mbs 4 --micro-batches 4 --recompute none --seq 2048 --warmup 3 --steps 10 [--cpu] (gloo, to test the logic)
"""
import argparse, contextlib, json, logging, math, os, sys, time, traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import multigpu_common as C  # noqa: E402

PARS = ["ddp", "zero1", "fsdp2", "tp", "pp"]
H200_PEAK = 989e12            # torchtitan/tools/utils.py get_peak_flops: H200 bf16 dense


def main(a):
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    import torch.nn.functional as F

    cpu = a.cpu
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", 0))
    dev = torch.device("cpu") if cpu else torch.device("cuda", local)
    dt = "cpu" if cpu else "cuda"
    if not cpu:
        torch.cuda.set_device(dev)
    from datetime import timedelta
    dist.init_process_group("gloo" if cpu else "nccl", timeout=timedelta(minutes=15),
                            **({} if cpu else {"device_id": dev}))
    log_rank = world - 1 if a.par == "pp" else 0
    tp = world if a.par == "tp" else 1
    pp = world if a.par == "pp" else 1
    dp = world // (tp * pp)
    dp_rank = rank // (tp * pp) if dp > 1 else 0

    logger = logging.getLogger()
    logger.setLevel(logging.INFO)
    logger.handlers.clear()
    h = logging.StreamHandler(sys.stdout)
    h.setFormatter(logging.Formatter("[titan] %(asctime)s - %(name)s - %(levelname)s - %(message)s"))
    logger.addHandler(h)
    if rank != log_rank:
        logger.setLevel(logging.WARNING)

    truth = {"run": a.name, "model": a.model, "par": a.par, "transport": a.transport, "world_size": world,
             "tp": tp, "pp": pp, "dp": dp, "micro_batch_size": a.mbs, "micro_batches": a.micro_batches,
             "seq": a.seq, "recompute": a.recompute, "warmup_steps": a.warmup, "steps": a.steps, "log_rank": log_rank,
             "torch": torch.__version__, "device": "cpu" if cpu else torch.cuda.get_device_name(dev),
             "env": {k: os.environ.get(k) for k in ("NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "NCCL_NVLS_ENABLE",
                                                     "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS")},
             "step_begins": [], "step_ends": [], "event_step_s": [], "losses": [], "log_tps": []}
    if not cpu:
        try:
            truth["nccl"] = ".".join(str(x) for x in torch.cuda.nccl.version())
        except Exception:                           # noqa: BLE001
            pass
    writer = rank in (0, log_rank)

    def write():
        if writer:
            path = os.path.join(a.out, a.name + (".truth.json" if rank == 0 else f".truth.rank{rank}.json"))
            with open(path, "w") as f:
                json.dump(truth, f, indent=1)

    def sync():
        if not cpu:
            torch.cuda.synchronize()

    # ---- the link as this run's communicator sees it
    if world > 1:
        n = (512 << 20) // 4 if not cpu else (8 << 20) // 4
        t = torch.ones(n, device=dev)
        for _ in range(2):
            dist.all_reduce(t)
        sync(); dist.barrier(); sync()
        t0 = time.perf_counter()
        for _ in range(5):
            dist.all_reduce(t)
        sync()
        el = (time.perf_counter() - t0) / 5
        truth["allreduce_probe"] = {"bytes": n * 4, "time_s": el,
                                    "busbw_gbps": n * 4 / el / 1e9 * 2 * (world - 1) / world}
        del t
    write()

    cfg = dict(C.preset(a.model))
    data_vocab = cfg["vocab"]
    if a.par == "tp" and cfg["vocab"] % tp:
        # vocabulary-parallel embedding and output need the vocabulary in tp equal shards: padded as Megatron pads it
        # (--make-vocab-size-divisible-by 128, times the tensor-parallel size); the ids drawn stay below the original
        cfg["vocab"] = -(-cfg["vocab"] // (128 * tp)) * (128 * tp)
    truth["vocab"] = cfg["vocab"]
    tied = cfg.get("tied_embeddings", False) and a.par not in ("tp", "pp")
    torch.manual_seed(0)
    with torch.device(dev):
        model = C.build_model(cfg, a.seq, tied=tied)
    C.init_weights(model)
    nparams = sum(p.numel() for p in model.parameters())
    nemb = sum(p.numel() for m in model.children() if isinstance(m, nn.Embedding) for p in m.parameters())
    flops_per_token = C.titan_flops_per_token(cfg, nparams, nemb, a.seq, tied)
    truth.update({"params": nparams, "params_embedding": nemb, "tied_embeddings": tied,
                  "titan_flops_per_token": flops_per_token})

    # ---- tensor parallelism first, then recompute, then the data-parallel wrapper (torchtitan's order)
    tp_mesh = None
    if a.par == "tp":
        from torch.distributed.device_mesh import init_device_mesh
        from torch.distributed.tensor import Replicate, Shard
        from torch.distributed.tensor.parallel import parallelize_module, ColwiseParallel, RowwiseParallel
        tp_mesh = init_device_mesh(dt, (tp,))
        parallelize_module(model, tp_mesh, {
            "tok": RowwiseParallel(input_layouts=Replicate(), output_layouts=Replicate()),
            "output": ColwiseParallel(input_layouts=Replicate(), output_layouts=Shard(-1), use_local_output=False)})
        gpt = "fc" in dict(list(model.layers.values())[0].mlp.named_children())
        for blk in model.layers.values():
            plan = {"attn.wq": ColwiseParallel(), "attn.wk": ColwiseParallel(), "attn.wv": ColwiseParallel(),
                    "attn.wo": RowwiseParallel()}
            plan.update({"mlp.fc": ColwiseParallel(), "mlp.proj": RowwiseParallel()} if gpt else
                        {"mlp.w1": ColwiseParallel(), "mlp.w3": ColwiseParallel(), "mlp.w2": RowwiseParallel()})
            parallelize_module(blk, tp_mesh, plan)

    if a.recompute == "full":
        from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import checkpoint_wrapper
        for k in list(model.layers.keys()):
            model.layers[k] = checkpoint_wrapper(model.layers[k], preserve_rng_state=False)

    stage_mod, schedule, schedule_name = None, None, None
    if a.par == "pp":
        keys = list(model.layers.keys())
        per = math.ceil(len(keys) / pp)
        mine = set(keys[rank * per:(rank + 1) * per])
        for k in keys:
            if k not in mine:
                del model.layers[k]
        if rank != 0:
            model.tok, model.pos = None, None
        if rank != pp - 1:
            model.norm, model.output = None, None
        truth["stage_layers"] = sorted(int(k) for k in mine)
        if not cpu:
            torch.cuda.empty_cache()
        from torch.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleGPipe
        stage = PipelineStage(model, stage_index=rank, num_stages=pp, device=dev)

        def pp_loss(out, tgt):
            return F.cross_entropy(out.flatten(0, 1).float(), tgt.flatten(0, 1))
        try:
            schedule = Schedule1F1B(stage, n_microbatches=a.micro_batches, loss_fn=pp_loss)
            schedule_name = "Schedule1F1B"
        except Exception as e:                      # noqa: BLE001
            truth["schedule_1f1b_refused"] = repr(e)[:300]
            schedule = ScheduleGPipe(stage, n_microbatches=a.micro_batches, loss_fn=pp_loss)
            schedule_name = "ScheduleGPipe"
        truth["schedule"] = schedule_name

    train_model, opt = model, None
    if a.par == "fsdp2":
        from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy
        from torch.distributed.device_mesh import init_device_mesh
        mesh = init_device_mesh(dt, (dp,))
        mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
        for blk in model.layers.values():
            fully_shard(blk, mesh=mesh, mp_policy=mp)
        fully_shard(model, mesh=mesh, mp_policy=mp)
    elif a.par in ("ddp", "zero1"):
        from torch.nn.parallel import DistributedDataParallel as DDP
        train_model = DDP(model, device_ids=None if cpu else [local], gradient_as_bucket_view=True)

    from torch.distributed.tensor import DTensor

    def adamw(params):
        # DTensor and plain parameters in separate groups: the optimizer's fused/foreach kernels take one group's
        # tensors at a time and refuse a mix (tensor parallelism leaves the norms and positions plain)
        dts = [p for p in params if isinstance(p, DTensor)]
        plain = [p for p in params if not isinstance(p, DTensor)]
        groups = [{"params": g} for g in (dts, plain) if g]
        try:
            return torch.optim.AdamW(groups, lr=1e-4, fused=True), "fused"
        except Exception as e:                      # noqa: BLE001
            truth["fused_refused"] = repr(e)[:300]
            return torch.optim.AdamW(groups, lr=1e-4), "default"
    if a.par == "zero1":
        from torch.distributed.optim import ZeroRedundancyOptimizer
        try:
            opt = ZeroRedundancyOptimizer(train_model.parameters(), optimizer_class=torch.optim.AdamW, lr=1e-4,
                                          fused=True)
            truth["optimizer"] = "ZeroRedundancyOptimizer(AdamW fused)"
        except Exception as e:                      # noqa: BLE001
            truth["fused_refused"] = repr(e)[:300]
            opt = ZeroRedundancyOptimizer(train_model.parameters(), optimizer_class=torch.optim.AdamW, lr=1e-4)
            truth["optimizer"] = "ZeroRedundancyOptimizer(AdamW)"
    else:
        opt, kind = adamw(list(model.parameters()))
        truth["optimizer"] = f"AdamW {kind}"
    params = [p for p in model.parameters() if p.requires_grad]

    # ---- data: each data-parallel rank its own ids; tensor and pipeline ranks of one replica the same
    gen = torch.Generator(device=dev)
    gen.manual_seed(1234 + dp_rank)
    def batch(n):
        x = torch.randint(0, data_vocab, (n, a.seq), device=dev, generator=gen)
        return x, x

    def clip(max_norm=1.0):
        """Global-norm clipping: sharded (DTensor with a Shard placement) gradients' squares all-reduced over their
        mesh, replicated ones counted once, stages' sums added; one coefficient for all."""
        sh, rep = [], []
        for p in params:
            g = p.grad
            if g is None:
                continue
            if isinstance(g, DTensor):
                (sh if any(pl.is_shard() for pl in g.placements) else rep).append(g.to_local())
            else:
                rep.append(g)
        zero = torch.zeros((), device=dev, dtype=torch.float32)
        sq_sh = sum((x.float().pow(2).sum() for x in sh), zero)
        sq_rep = sum((x.float().pow(2).sum() for x in rep), zero)
        if sh and world > 1:
            dist.all_reduce(sq_sh)                  # the shard groups here are the whole world (one-dimensional)
        total = sq_sh + sq_rep
        if pp > 1:
            dist.all_reduce(total)
        norm = total.sqrt()
        coef = torch.clamp(max_norm / (norm + 1e-6), max=1.0)
        for x in sh + rep:
            x.mul_(coef.to(x.dtype))
        return norm

    autocast = (lambda: torch.autocast(dt, dtype=torch.bfloat16)) if a.par != "fsdp2" else contextlib.nullcontext

    def step():
        M, losses = a.micro_batches, []
        if a.par == "pp":
            x, y = batch(a.mbs * M)
            out = []
            with autocast():
                if pp == 1:
                    schedule.step(x, target=y, losses=out)
                elif rank == 0:
                    schedule.step(x)
                elif rank == pp - 1:
                    schedule.step(target=y, losses=out)
                else:
                    schedule.step()
            loss = torch.stack(out).mean().detach() if out else torch.full((), -1.0, device=dev)
        else:
            from torch.distributed.tensor.parallel import loss_parallel
            for m in range(M):
                last = m == M - 1
                x, y = batch(a.mbs)
                ctx = train_model.no_sync() if (a.par in ("ddp", "zero1") and not last) else contextlib.nullcontext()
                if a.par == "fsdp2":
                    model.set_requires_gradient_sync(last)
                with ctx, (loss_parallel() if a.par == "tp" else contextlib.nullcontext()):
                    with autocast():
                        logits = train_model(x)
                    loss = F.cross_entropy(logits.flatten(0, 1).float(), y.flatten(0, 1)) / M
                    loss.backward()
                if isinstance(loss, DTensor):
                    loss = loss.full_tensor()
                losses.append(loss.detach())
            loss = torch.stack(losses).sum()
        norm = clip()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if dp > 1:
            dist.all_reduce(loss, op=dist.ReduceOp.AVG if not cpu else dist.ReduceOp.SUM)
            if cpu:
                loss = loss / dp
        return loss, norm

    # ---- torchtitan's start lines
    total_mem = (torch.cuda.get_device_properties(dev).total_memory if not cpu else 1)
    if not cpu:
        logger.info(f"CUDA capacity: {torch.cuda.get_device_name(dev)} with {total_mem / 2 ** 30:.2f}GiB memory")
    logger.info(f"Model {a.model} size: {nparams:,} total parameters")
    logger.info(f"Applied {a.par} to the model (bench/multigpu_training_sweep.py: plain PyTorch, "
                f"{'recompute full' if a.recompute == 'full' else 'no recompute'}, world {world}, dp {dp} tp {tp} pp {pp}"
                + (f", {schedule_name}" if schedule_name else "") + ")")
    gbs = a.mbs * a.micro_batches * dp
    logger.info(f"Trainer initialized. Training starts at step 1, with local batch size {a.mbs}, global batch size "
                f"{gbs}, gradient accumulation steps {a.micro_batches}, sequence length {a.seq}, total steps "
                f"{a.steps} (warmup 0)")
    if not cpu:
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    sync()
    dist.barrier()
    time_last_log = time.perf_counter()
    local_tokens = a.mbs * a.micro_batches * a.seq          # what each rank loaded this step (labels.numel())
    try:
        for s in range(1, a.steps + 1):
            sync()
            tb = time.perf_counter()
            ev0 = torch.cuda.Event(enable_timing=True) if not cpu else None
            if ev0 is not None:
                ev0.record()
            loss, norm = step()
            if ev0 is not None:
                ev1 = torch.cuda.Event(enable_timing=True)
                ev1.record()
            lv, nv = float(loss.item()), float(norm.item())
            # the log (torchtitan's MetricsProcessor.log)
            delta = time.perf_counter() - time_last_log
            tps = local_tokens / (delta * tp * pp)
            tflops = flops_per_token * tps / 1e12
            mfu = 100 * flops_per_token * tps / H200_PEAK
            if not cpu:
                peak = torch.cuda.memory_stats(dev).get("reserved_bytes.all.peak", -1)
            else:
                peak = 0
            logger.info(f"step: {s:2}  loss: {lv:8.5f}  grad_norm: {nv:7.4f}  memory: {peak / 2 ** 30:5.2f}GiB"
                        f"({100 * peak / total_mem:.2f}%)  tps: {round(tps):,}  tflops: {tflops:,.2f}  mfu: {mfu:.2f}%")
            time_last_log = time.perf_counter()
            if not cpu:
                torch.cuda.reset_peak_memory_stats()
            sync()
            te = time.perf_counter()
            truth["step_begins"].append(tb)
            truth["step_ends"].append(te)
            if ev0 is not None:
                truth["event_step_s"].append(ev0.elapsed_time(ev1) / 1e3)
            truth["losses"].append(lv)
            truth["log_tps"].append(tps)
            write()
        logger.info("Training completed")
    except Exception:
        truth["error"] = traceback.format_exc()[-4000:]
        write()
        raise
    # per-rank medians of the end-to-end step (every rank times its own; they run in lockstep)
    ends = truth["step_ends"]
    iv = [b - x for x, b in zip(ends, ends[1:])][a.warmup - 1 if a.warmup > 0 else 0:]
    mine = torch.tensor([C.med(iv) or 0.0], device=dev, dtype=torch.float64)
    allm = [torch.zeros_like(mine) for _ in range(world)]
    dist.all_gather(allm, mine)
    truth["median_step_s_by_rank"] = [float(x.item()) for x in allm]
    if not cpu:
        truth["max_memory_allocated_gib"] = torch.cuda.max_memory_allocated(dev) / 2 ** 30
    write()
    dist.barrier()
    dist.destroy_process_group()


def args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--name", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--par", required=True, choices=PARS)
    p.add_argument("--transport", default="p2p", choices=list(C.TRANSPORTS))
    p.add_argument("--mbs", type=int, required=True)
    p.add_argument("--micro-batches", type=int, required=True)
    p.add_argument("--recompute", default="none", choices=["none", "full"])
    p.add_argument("--seq", type=int, default=2048)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--cpu", action="store_true")
    return p.parse_args(argv)


if __name__ == "__main__":
    main(args(sys.argv[1:]))
