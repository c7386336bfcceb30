"""The Hugging Face Trainer on the GPUs of one host through `accelerate launch` (issue 24, item 3), started by
bench/multigpu_trainer_accelerate.sh with bench/accelerate/ddp.yaml (DistributedDataParallel) or fsdp.yaml (FSDP2).

The model and data are bench/h200_trainer_logs.py's plain run, so the single-GPU logs of issue 19 and these compare:
a TinyLlama-1.1B-shaped LlamaForCausalLM built from its config (hidden 2048, intermediate 5632, 22 layers, 32 heads,
4 KV heads, vocabulary 32000; nothing downloaded), random token ids, seq 2048, bf16=True, sdpa attention, per-device
batch 4, optim adamw_torch_fused, logging every step, 30 optimizer steps, report_to none, save nothing.
The log is the console as people keep it (`accelerate launch ... 2>&1 | tee NAME.log`: the Trainer's tqdm bar and
per-step dicts from the main process, every rank's warnings). The truth, outside the log: a TrainerCallback on every
rank calls torch.cuda.synchronize() at on_step_begin / on_step_end and rank 0 writes the perf_counter times to
NAME.truth.json (it prints nothing). --finish DIR NAME... adds the steady step (the median interval from one step end to
the next, steps 6 on: bench/h200_trainer_logs.py's steady()) and writes, in src/test/resources' layout,
runs/hf-trainer-{N}xh200/NAME.yaml naming logs/hf-trainer-{N}xh200/NAME.log, and summary.json.
Run: bench/multigpu_trainer_accelerate.sh OUTDIR [N] [ddp fsdp]   (N GPUs, default 8)
"""
import json, os, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import multigpu_common as C  # noqa: E402  (NVLink multicast off in this process too)
from h200_trainer_logs import CONFIG, SEQ, steady  # noqa: E402  (the same model and the same steady step)

STEPS, BATCH = 30, 4


def worker(name, out, steps):
    import torch
    from torch.utils.data import Dataset
    import transformers
    from transformers import LlamaConfig, LlamaForCausalLM, Trainer, TrainingArguments, TrainerCallback

    rank = int(os.environ.get("RANK", 0))
    world = int(os.environ.get("WORLD_SIZE", 1))
    truth = {"run": name, "batch_per_device": BATCH, "world_size": world, "seq": SEQ, "torch": torch.__version__,
             "transformers": transformers.__version__, "step_begins": [], "step_ends": [],
             "accelerate_env": {k: v for k, v in os.environ.items() if k.startswith(("ACCELERATE_", "FSDP_"))},
             "env": {k: os.environ.get(k) for k in C.NO_MULTICAST}}
    try:
        import accelerate
        truth["accelerate"] = accelerate.__version__
    except ImportError:
        pass

    def write():
        if rank == 0:
            with open(os.path.join(out, name + ".truth.json"), "w") as f:
                json.dump(truth, f, indent=1)

    class Data(Dataset):
        def __init__(self, n):
            self.n = n
            self.g = torch.Generator().manual_seed(rank)

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            ids = torch.randint(0, CONFIG["vocab_size"], (SEQ,), generator=self.g)
            return {"input_ids": ids, "labels": ids.clone()}

    class Truth(TrainerCallback):
        def on_step_begin(self, args, state, control, **k):
            torch.cuda.synchronize(); truth["step_begins"].append(time.perf_counter())

        def on_step_end(self, args, state, control, **k):
            torch.cuda.synchronize(); truth["step_ends"].append(time.perf_counter()); write()

    torch.manual_seed(0)
    cfg = LlamaConfig(**CONFIG)
    cfg._attn_implementation = "sdpa"
    model = LlamaForCausalLM(cfg)
    args = TrainingArguments(output_dir=os.path.join("/tmp/ckpt-accelerate", name), per_device_train_batch_size=BATCH,
                             max_steps=steps, logging_steps=1, bf16=True, learning_rate=1e-4, optim="adamw_torch_fused",
                             report_to="none", dataloader_num_workers=0, save_strategy="no", seed=0)
    tr = Trainer(model=model, args=args, train_dataset=Data(BATCH * steps * world), callbacks=[Truth()])
    truth["trainer"] = {"model_wrapped": type(tr.model_wrapped).__name__ if tr.model_wrapped is not None else None,
                        "is_fsdp_enabled": getattr(tr, "is_fsdp_enabled", None)}
    tr.train()
    truth["trainer"]["model_wrapped_after"] = type(tr.model_wrapped).__name__
    write()


def finish(out, names, gpus):
    sub = f"hf-trainer-{gpus}xh200"
    logs, runs = os.path.join(out, "logs", sub), os.path.join(out, "runs", sub)
    os.makedirs(logs, exist_ok=True)
    os.makedirs(runs, exist_ok=True)
    summary = {"source": "bench/multigpu_trainer_accelerate.sh on " + C.sh(["nvidia-smi", "-L"]).split("\n")[0]
               + f" x{gpus}; each NAME.log is `accelerate launch` 2>&1 as printed, NAME.truth.json its step ends "
               "timed by a callback outside the log", "runs": {}}
    for name in names:
        for ext in (".log", ".truth.json"):
            src = os.path.join(out, name + ext)
            if os.path.exists(src):
                os.replace(src, os.path.join(logs, name + ext))
        try:
            with open(os.path.join(logs, name + ".truth.json")) as f:
                truth = json.load(f)
        except (OSError, ValueError) as e:
            summary["runs"][name] = {"error": f"no truth: {e!r}"}
            continue
        s = steady(truth)
        w = truth.get("world_size", gpus)
        truth["steady_step_s"] = s
        truth["steady_tokens_per_gpu_per_s"] = BATCH * SEQ / s if s else None
        with open(os.path.join(logs, name + ".truth.json"), "w") as f:
            json.dump(truth, f, indent=1)
        summary["runs"][name] = {"steady_step_s": s, "steady_tokens_per_gpu_per_s": truth["steady_tokens_per_gpu_per_s"],
                                 "steps": len(truth["step_ends"]), "world_size": w}
        if not s:
            continue
        zero = 3 if name.startswith("fsdp") else 0
        how = ("accelerate's FSDP2 (fully_shard per LlamaDecoderLayer, resharded after the forward)" if zero
               else "accelerate's MULTI_GPU (DistributedDataParallel)")
        with open(os.path.join(runs, name + ".yaml"), "w") as f:
            f.write(
                f"# Issue 24: the Hugging Face Trainer on one host of {w} H200 through accelerate launch "
                f"(bench/multigpu_trainer_accelerate.sh,\n# bench/accelerate/{'fsdp' if zero else 'ddp'}.yaml; "
                f"transformers {truth.get('transformers')}, accelerate {truth.get('accelerate')}, torch "
                f"{truth.get('torch')}): {how},\n# a TinyLlama-1.1B-shaped model built from its config, per-device "
                f"batch {BATCH}, seq {SEQ}, fused AdamW, logging every step.\n# The log is the console as printed; "
                f"its true steady step is in ../../logs/{sub}/{name}.truth.json: {s:.4f} s.\n"
                f"name: hf-trainer-{w}xh200-{name}\n"
                f"cluster: {{gpu: H200-SXM-141GB, nodes: 1, gpus_per_node: {w}, intra_node: {{link: NVLink4, "
                f"transport: p2p}}}}\n"
                "model: {name: tinyllama-1.1b, layers: 22, hidden: 2048, heads: 32, kv_heads: 4, ffn_hidden: 5632, "
                "vocab: 32000,\n        gated_mlp: true, tied_embeddings: false, norm: rmsnorm, position_embedding: rope}\n"
                f"parallel: {{dp: {w}, zero_stage: {zero}}}\n"
                f"training: {{seq_len: {SEQ}, micro_batch_size: {BATCH}, micro_batches: 1, framework: hf-trainer, "
                "optimizer_kernel: fused}\n"
                f"log: ../../logs/{sub}/{name}.log\n")
    with open(os.path.join(logs, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(json.dumps(summary["runs"], indent=1))


if __name__ == "__main__":
    if sys.argv[1] == "--finish":
        finish(sys.argv[2], sys.argv[4:], int(sys.argv[3]))
    else:
        worker(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else STEPS)
