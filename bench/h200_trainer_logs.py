"""Real console logs of the Hugging Face Trainer and PyTorch Lightning, as people keep them (python train.py 2>&1 | tee
train.log: tqdm's bar with its carriage returns, the Trainer's per-step dicts, warnings), each with its true steady
step recorded beside it by a callback that prints nothing to the log.

The model: a TinyLlama-1.1B-shaped LlamaForCausalLM built from its config (hidden 2048, intermediate 5632, 22 layers,
32 heads, 4 KV heads, vocabulary 32000; nothing downloaded), random token ids, seq 2048, one H200.
Runs (each its own python process; 30 optimizer steps unless said):
  plain       bf16=True, sdpa attention, per-device batch 4, optim adamw_torch_fused, logging every step
  compiled    plain + torch_compile=True (the first steps compile)
  checkpoint  plain + save_steps=10 (a checkpoint with the optimizer every 10 steps, save_total_limit 1), 30 steps
  killed      plain, killed at step 20 (os._exit(137) from a callback: no summary, as a job killed by its scheduler)
  batch1      per-device batch 1, killed at step 30
  eager       attn_implementation="eager", killed at step 25
  slowdata    a data set whose samples take 15 ms each to make, dataloader_num_workers=0
  fp32        bf16 off (fp32 weights and matmuls; TF32 off, PyTorch's default), 12 steps
  adamw       plain with optim adamw_torch (the foreach default) instead of the fused kernel
  lightning   PyTorch Lightning Trainer around the same model, precision "bf16-mixed", fused AdamW, its progress bar
              (the Rich bar, Lightning's default where rich is installed)
  checkpoint60  checkpoint with 60 steps and log_level="info" (the Trainer's "Saving model checkpoint" lines)
  lightning_tqdm  lightning with its TQDMProgressBar instead of the Rich one
  batch2      per-device batch 2 (for the price of doubling the micro-batch)
  lightning_profiled          lightning with profiler="simple" (Lightning's SimpleProfiler report at the end)
  lightning_profiled_slowdata the same with samples of 15 ms each and no workers
  trl         TRL's SFTTrainer (trl 1.10.0.dev0 at f2cd577, carried as source in bench/vendor/trl, which git
              ignores: `git -C TRL_CLONE archive f2cd577 trl | tar -x -C bench/vendor`, then the device tool's carry
              of bench/vendor; the machine has no trl) on the same random ids, already tokenized (a
              word-level tokenizer built in memory as its processing_class), max_length 2048, no packing, the plain
              run's arguments otherwise. The machine has no `datasets` either, which trl imports at module level: where
              it is missing a stub module naming its four dataset classes is put on the path, and the data set is a
              torch Dataset passed with dataset_kwargs={"skip_prepare_dataset": True}, so no datasets code would run
Truth: on_step_begin / on_step_end (Lightning: on_train_batch_start / end) after torch.cuda.synchronize(): every
step's wall time from one step end to the next, written to NAME.truth.json; the steady step is the median of steps 6
on that are not checkpoint steps, tokens/s = batch x 2048 / that.
Run: python3 bench/h200_trainer_logs.py OUTDIR [names...]
"""
import json, os, subprocess, sys, time

CONFIG = dict(hidden_size=2048, intermediate_size=5632, num_hidden_layers=22, num_attention_heads=32,
              num_key_value_heads=4, vocab_size=32000, max_position_embeddings=2048, rms_norm_eps=1e-5,
              tie_word_embeddings=False)
SEQ = 2048
RUNS = {
    "plain": {}, "compiled": {"torch_compile": True}, "checkpoint": {"save_steps": 10},
    "killed": {"kill_at": 20}, "batch1": {"batch": 1, "kill_at": 30}, "eager": {"attn": "eager", "kill_at": 25},
    "slowdata": {"slow_ms": 15}, "fp32": {"bf16": False, "steps": 12}, "adamw": {"optim": "adamw_torch"},
    "lightning": {"lightning": True},
    "checkpoint60": {"save_steps": 10, "steps": 60, "log_level": "info"},
    "lightning_tqdm": {"lightning": True, "tqdm": True},
    "trl": {"trl": True}, "batch2": {"batch": 2},
    "lightning_profiled": {"lightning": True, "profiler": "simple"},
    "lightning_profiled_slowdata": {"lightning": True, "profiler": "simple", "slow_ms": 15},
}
DATASETS_STUB = """__version__ = "0.0.0+stub"  # not the datasets library: the names trl imports, for a run that never calls it
class Dataset: pass
class IterableDataset: pass
class DatasetDict(dict): pass
class IterableDatasetDict(dict): pass
"""


def worker(name, out):
    import torch
    from torch.utils.data import Dataset
    import transformers
    from transformers import LlamaConfig, LlamaForCausalLM, Trainer, TrainingArguments, TrainerCallback
    o = RUNS[name]
    batch, steps = o.get("batch", 4), o.get("steps", 30)
    truth = {"run": name, "options": o, "batch": batch, "seq": SEQ, "torch": torch.__version__,
             "transformers": transformers.__version__, "step_ends": [], "step_begins": [], "saves": []}

    def write():
        json.dump(truth, open(os.path.join(out, name + ".truth.json"), "w"), indent=1)

    class Data(Dataset):
        def __init__(self, n):
            self.n = n
            self.g = torch.Generator().manual_seed(0)

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            if o.get("slow_ms"):
                time.sleep(o["slow_ms"] / 1000)
            ids = torch.randint(0, CONFIG["vocab_size"], (SEQ,), generator=self.g)
            return {"input_ids": ids, "labels": ids.clone()}

    torch.manual_seed(0)
    cfg = LlamaConfig(**CONFIG)
    cfg._attn_implementation = o.get("attn", "sdpa")
    model = LlamaForCausalLM(cfg)

    if o.get("lightning"):
        try:
            import lightning.pytorch as pl
        except ImportError:
            import pytorch_lightning as pl

        class Module(pl.LightningModule):
            def __init__(self):
                super().__init__()
                self.model = model

            def training_step(self, b, i):
                loss = self.model(**b).loss
                self.log("loss", loss, prog_bar=True)
                return loss

            def configure_optimizers(self):
                return torch.optim.AdamW(self.parameters(), lr=1e-4, fused=True)

        class Truth(pl.Callback):
            def on_train_batch_start(self, *a):
                torch.cuda.synchronize(); truth["step_begins"].append(time.perf_counter())

            def on_train_batch_end(self, *a):
                torch.cuda.synchronize(); truth["step_ends"].append(time.perf_counter()); write()

        loader = torch.utils.data.DataLoader(Data(batch * steps), batch_size=batch, num_workers=0)
        callbacks = [Truth()]
        if o.get("tqdm"):
            from lightning.pytorch.callbacks import TQDMProgressBar
            callbacks.append(TQDMProgressBar(refresh_rate=1))
        pl.Trainer(max_steps=steps, precision="bf16-mixed", devices=1, accelerator="gpu", log_every_n_steps=1,
                   enable_checkpointing=False, logger=False, callbacks=callbacks,
                   profiler=o.get("profiler")).fit(Module(), loader)
        write()
        return

    class Truth(TrainerCallback):
        def on_step_begin(self, args, state, control, **k):
            torch.cuda.synchronize(); truth["step_begins"].append(time.perf_counter())

        def on_step_end(self, args, state, control, **k):
            torch.cuda.synchronize(); truth["step_ends"].append(time.perf_counter()); write()
            if o.get("kill_at") and state.global_step >= o["kill_at"]:
                sys.stdout.flush(); sys.stderr.flush()
                os._exit(137)

        def on_save(self, args, state, control, **k):
            truth["saves"].append([state.global_step, time.perf_counter()]); write()

    kwargs = dict(output_dir=os.path.join("/tmp/ckpt", name), per_device_train_batch_size=batch,
                  max_steps=steps, logging_steps=1, bf16=o.get("bf16", True), learning_rate=1e-4,
                  optim=o.get("optim", "adamw_torch_fused"), report_to="none", dataloader_num_workers=0,
                  save_strategy="steps" if o.get("save_steps") else "no", save_steps=o.get("save_steps", 500),
                  save_total_limit=1, torch_compile=o.get("torch_compile", False), seed=0,
                  log_level=o.get("log_level", "passive"))
    args = TrainingArguments(**kwargs)
    if o.get("trl"):
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vendor"))
        try:
            import datasets
        except ImportError:
            import tempfile
            stub = tempfile.mkdtemp()
            os.makedirs(os.path.join(stub, "datasets"))
            open(os.path.join(stub, "datasets", "__init__.py"), "w").write(DATASETS_STUB)
            sys.path.insert(0, stub)
            import datasets
        import tokenizers, trl
        from transformers import PreTrainedTokenizerFast
        truth["trl"] = getattr(trl, "__version__", "?")
        truth["datasets"] = datasets.__version__
        vocab = {f"t{i}": i for i in range(CONFIG["vocab_size"])}
        tok = PreTrainedTokenizerFast(tokenizer_object=tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, "t0")),
                                      eos_token="t2", pad_token="t0", bos_token="t1", unk_token="t0")
        g = torch.Generator().manual_seed(0)
        rows = [{"input_ids": torch.randint(3, CONFIG["vocab_size"], (SEQ,), generator=g).tolist()}
                for _ in range(batch * steps)]

        class Rows(Dataset):
            column_names = ["input_ids"]   # what trl asks of a data set whose preparation it skips

            def __len__(self):
                return len(rows)

            def __getitem__(self, i):
                return rows[i]

        trl.SFTTrainer(model=model, args=trl.SFTConfig(**kwargs, max_length=SEQ, packing=False,
                                                       dataset_kwargs={"skip_prepare_dataset": True}),
                       processing_class=tok, train_dataset=Rows(), callbacks=[Truth()]).train()
        write()
        return
    Trainer(model=model, args=args, train_dataset=Data(batch * steps), callbacks=[Truth()]).train()
    write()


def steady(truth):
    ends = truth["step_ends"]
    saves = {s for s, _ in truth.get("saves", [])}
    d = [(i + 1, ends[i] - ends[i - 1]) for i in range(1, len(ends))]
    keep = sorted(x for step, x in d if step >= 6 and step not in saves and step - 1 not in saves)
    if not keep:
        return None
    n = len(keep)
    return keep[n // 2] if n % 2 else (keep[n // 2 - 1] + keep[n // 2]) / 2


def main(out, names):
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ, NCCL_NVLS_ENABLE="0", TORCH_SYMM_MEM_DISABLE_MULTICAST="1", NVSHMEM_DISABLE_NVLS="1",
               PYTHONUNBUFFERED="1")
    summary = {}
    for name in names:
        t = time.time()
        with open(os.path.join(out, name + ".log"), "w") as log:
            try:
                rc = subprocess.run([sys.executable, __file__, "--worker", name, out], stdout=log,
                                    stderr=subprocess.STDOUT, env=env, timeout=240).returncode
            except subprocess.TimeoutExpired:
                rc = "timeout"
        try:
            truth = json.load(open(os.path.join(out, name + ".truth.json")))
            s = steady(truth)
            truth["steady_step_s"] = s
            truth["steady_tokens_per_s"] = truth["batch"] * SEQ / s if s else None
            truth["exit_code"] = rc
            truth["wall_s"] = time.time() - t
            json.dump(truth, open(os.path.join(out, name + ".truth.json"), "w"), indent=1)
            summary[name] = {"rc": rc, "steady_step_s": s, "tokens_per_s": truth["steady_tokens_per_s"],
                             "steps": len(truth["step_ends"]), "wall_s": round(time.time() - t, 1)}
        except Exception as e:
            summary[name] = {"rc": rc, "error": repr(e)[:200]}
        print(name, summary[name], flush=True)
    json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=1)


if __name__ == "__main__":
    if sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv[1], sys.argv[2:] or list(RUNS))
