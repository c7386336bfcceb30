"""Where a Hugging Face Llama step's time goes on one H200, by phase and kernel class: what the step model's GEMM,
attention, element-wise and launch terms must agree with for the Trainer's runs (issue 19's remedies: torch.compile,
flash against eager attention, a larger batch, the fused optimizer).

The model: the TinyLlama-1.1B-shaped LlamaForCausalLM of bench/h200_trainer_logs.py (hidden 2048, intermediate 5632,
22 layers, 32 heads, 4 KV heads, vocabulary 32000, built from its config), fp32 parameters, seq 2048, the step the
Trainer runs with bf16=True: forward and loss under torch.autocast(bf16), backward, clip_grad_norm_(1.0), AdamW
(fused or foreach), zero_grad(set_to_none). Cases (each its own process):
  sdpa_b4            attn_implementation sdpa, micro-batch 4, fused AdamW (the Trainer run 'plain')
  sdpa_b1            micro-batch 1
  eager_b4           attn_implementation eager
  sdpa_b4_compiled   torch.compile(model) (default mode, as TrainingArguments(torch_compile=True))
  sdpa_b4_foreach    AdamW(foreach=True), the 'adamw_torch' optimizer
Timing: 4 warm-up steps (the compiled case compiles in them), then 10 steps with CUDA events between the phases
(forward+loss, backward, clip, optimizer, zero_grad), medians; then torch.profiler records 2 steps with a
record_function range per phase, and the exported trace's kernels (with memcpy/memset) are summed by the GPU-side
range they fall in and by class of kernel name: gemm (cuBLAS/cuBLASLt/CUTLASS: gemm, nvjet, xmma, cutlass), attention
(flash, fmha, cudnn), triton (Inductor's fused kernels), optimizer (multi_tensor, fused_adam), other (ATen element-wise,
reductions, softmax, copies, index and cat kernels). Also: kernels per step and GPU busy (the union of kernel
intervals) per step.
Run on one GPU: python3 bench/h200_hf_step_kernels.py OUT.json [cases...]
"""
import json, os, statistics, subprocess, sys, tempfile, time

CONFIG = dict(hidden_size=2048, intermediate_size=5632, num_hidden_layers=22, num_attention_heads=32,
              num_key_value_heads=4, vocab_size=32000, max_position_embeddings=2048, rms_norm_eps=1e-5,
              tie_word_embeddings=False)
SEQ = 2048
CASES = {
    "sdpa_b4": {}, "sdpa_b1": {"batch": 1}, "eager_b4": {"attn": "eager"},
    "sdpa_b4_compiled": {"compile": True}, "sdpa_b4_foreach": {"foreach": True},
}
PHASES = ("forward", "backward", "clip", "optimizer", "zero_grad")


def kernel_class(name):
    n = name.lower()
    if "triton" in n:
        return "triton"
    if any(k in n for k in ("flash", "fmha", "cudnn", "attention")):
        return "attention"
    if any(k in n for k in ("gemm", "nvjet", "xmma", "cutlass", "cublas")):
        return "gemm"
    if any(k in n for k in ("multi_tensor", "fused_adam", "fusedadam", "adam")):
        return "optimizer"
    return "other"


def worker(name):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    o = CASES[name]
    batch = o.get("batch", 4)
    torch.manual_seed(0)
    cfg = LlamaConfig(**CONFIG)
    cfg._attn_implementation = o.get("attn", "sdpa")
    model = LlamaForCausalLM(cfg).cuda().train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, **({"foreach": True} if o.get("foreach") else {"fused": True}))
    run = torch.compile(model) if o.get("compile") else model
    ids = torch.randint(0, CONFIG["vocab_size"], (batch, SEQ), device="cuda")

    def step(events=None, ranges=False):
        from torch.profiler import record_function
        import contextlib
        rf = record_function if ranges else (lambda n: contextlib.nullcontext())
        marks = []

        def mark():
            if events is not None:
                e = torch.cuda.Event(enable_timing=True); e.record(); marks.append(e)
        mark()
        with rf("forward"):
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = run(input_ids=ids, labels=ids).loss
        mark()
        with rf("backward"):
            loss.backward()
        mark()
        with rf("clip"):
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        mark()
        with rf("optimizer"):
            opt.step()
        mark()
        with rf("zero_grad"):
            opt.zero_grad(set_to_none=True)
        mark()
        if events is not None:
            events.append(marks)

    t0 = time.time()
    for _ in range(4):
        step()
    torch.cuda.synchronize()
    warm_s = time.time() - t0
    events = []
    walls = []
    for _ in range(10):
        t = time.perf_counter()
        step(events)
        torch.cuda.synchronize()
        walls.append(time.perf_counter() - t)
    phases = {p: statistics.median(m[i].elapsed_time(m[i + 1]) / 1e3 for m in events) for i, p in enumerate(PHASES)}
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(2):
            step(ranges=True)
        torch.cuda.synchronize()
    path = tempfile.mktemp(suffix=".json")
    prof.export_chrome_trace(path)
    trace = json.load(open(path)).get("traceEvents", [])
    os.remove(path)
    spans = [(e["ts"], e["ts"] + e.get("dur", 0), e["name"]) for e in trace
             if e.get("cat") == "gpu_user_annotation" and e.get("name") in PHASES]
    kernels = [e for e in trace if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    by = {}
    count = {}
    for k in kernels:
        mid = k["ts"] + k.get("dur", 0) / 2
        phase = next((n for a, b, n in spans if a <= mid <= b), "outside")
        c = kernel_class(k["name"]) if k.get("cat") == "kernel" else "copy"
        by.setdefault(phase, {}).setdefault(c, 0.0)
        by[phase][c] += k.get("dur", 0) / 1e6 / 2
        count[phase] = count.get(phase, 0) + 0.5
    iv = sorted((k["ts"], k["ts"] + k.get("dur", 0)) for k in kernels)
    busy, end = 0.0, None
    for a, b in iv:
        if end is None or a > end:
            busy += b - a; end = b
        elif b > end:
            busy += b - end; end = b
    top = {}
    for k in kernels:
        top[k["name"][:90]] = top.get(k["name"][:90], 0) + k.get("dur", 0) / 1e6 / 2
    row = {"case": name, "options": o, "batch": batch, "seq": SEQ, "torch": torch.__version__,
           "warm_up_s": warm_s, "wall_per_step_s": statistics.median(walls), "phase_s": phases,
           "kernel_s_by_phase_and_class": {p: {c: round(v, 6) for c, v in sorted(d.items())} for p, d in sorted(by.items())},
           "kernels_per_step_by_phase": count, "gpu_busy_per_step_s": busy / 1e6 / 2,
           "kernels_per_step": len(kernels) / 2,
           "top_kernels_s": dict(sorted(top.items(), key=lambda x: -x[1])[:40]),
           "max_memory_allocated_gib": torch.cuda.max_memory_allocated() / 2 ** 30}
    print("ROW " + json.dumps(row), flush=True)


def main(out, names):
    env = dict(os.environ, NCCL_NVLS_ENABLE="0", TORCH_SYMM_MEM_DISABLE_MULTICAST="1", NVSHMEM_DISABLE_NVLS="1",
               PYTHONUNBUFFERED="1")
    rows, errors = [], {}
    for name in names:
        t = time.time()
        p = subprocess.run([sys.executable, __file__, "--worker", name], capture_output=True, text=True, env=env,
                           timeout=300)
        got = [l[4:] for l in p.stdout.splitlines() if l.startswith("ROW ")]
        if got:
            rows.append(json.loads(got[-1]))
        else:
            errors[name] = (p.stdout + p.stderr)[-2000:]
        print(name, round(time.time() - t, 1), "s", "ok" if got else "failed", flush=True)
        json.dump({"method": __doc__, "rows": rows, "errors": errors}, open(out, "w"), indent=1)


if __name__ == "__main__":
    if sys.argv[1] == "--worker":
        worker(sys.argv[2])
    else:
        main(sys.argv[1], sys.argv[2:] or list(CASES))
