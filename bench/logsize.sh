#!/usr/bin/env bash
# Logs of any size (issue 12): generates a Megatron-LM log of SIZE_GB (default 5) GB in /tmp and parses it with
# `java -Xmx512m -jar target/train-advisor.jar parse`, under /usr/bin/time -v. Prints the size, the wall time, MB/s
# (1e6 bytes) and the maximum resident set size. Targets: at least 100 MB/s, a 512 MB heap enough.
#
# The log is a realistic mix, in the line formats of shared/samples/logs/megatron-1.log and docs/logs.md (Megatron-LM):
# start-up lines and a full argument dump, then per iteration (log interval 1) a timestamped training_log line, the
# "(min, max) time across ranks (ms):" block of 15 timers, and now and then a memory line, checkpoint lines and a
# Python warning. Step times and losses vary (a fixed seed: the same file every run). The file is kept for reruns
# (LOGSIZE_FILE to choose it; delete it when done).
# Builds nothing: run `mvn -B -ntp -q package -Dmaven.test.skip=true` first.
set -euo pipefail
cd "$(dirname "$0")/.."
size_gb=${SIZE_GB:-5}
file=${LOGSIZE_FILE:-/tmp/train-advisor-megatron-${size_gb}g.log}
jar=target/train-advisor.jar
[ -f "$jar" ] || { echo "no $jar: build it first (mvn -B -ntp -q package -Dmaven.test.skip=true)" >&2; exit 2; }
need=$(awk -v g="$size_gb" 'BEGIN {printf "%d", g * 1e9 / 1024 + 1024 * 1024}')   # KiB: the log and 1 GiB spare
free=$(df -Pk "$(dirname "$file")" | awk 'NR==2 {print $4}')
if [ ! -f "$file" ] && [ "$free" -lt "$need" ]; then
  echo "only $((free / 1024 / 1024)) GiB free in $(dirname "$file"): run with a smaller SIZE_GB" >&2
  exit 2
fi

if [ ! -f "$file" ] || [ "$(stat -c %s "$file")" -lt "$(awk -v g="$size_gb" 'BEGIN {printf "%d", g * 1e9}')" ]; then
  echo "generating $file ($size_gb GB) ..."
  python3 - "$file" "$size_gb" <<'EOF'
import random, sys, datetime
path, size_gb = sys.argv[1], float(sys.argv[2])
target = int(size_gb * 1e9)
rnd = random.Random(12)
args = {"accumulate_allreduce_grads_in_fp32": "True", "adam_beta1": "0.9", "adam_beta2": "0.95", "bf16": "True",
        "clip_grad": "1.0", "context_parallel_size": "1", "data_parallel_size": "64", "ffn_hidden_size": "14336",
        "fp16": "False", "global_batch_size": "1024", "group_query_attention": "True", "hidden_size": "4096",
        "log_interval": "1", "lr": "0.0003", "lr_decay_style": "cosine", "lr_warmup_iters": "2000",
        "micro_batch_size": "1", "num_attention_heads": "32", "num_layers": "32", "num_query_groups": "8",
        "overlap_grad_reduce": "True", "overlap_param_gather": "True", "pipeline_model_parallel_size": "2",
        "recompute_granularity": "selective", "seq_length": "8192", "sequence_parallel": "True", "swiglu": "True",
        "tensor_model_parallel_size": "4", "train_iters": "500000", "untie_embeddings_and_output_weights": "True",
        "use_distributed_optimizer": "True", "use_flash_attn": "True", "vocab_size": "128000", "world_size": "512"}
for k in range(60):
    args["unused_option_%02d" % k] = "None"
timers = ["forward-backward", "forward-compute", "backward-compute", "batch-generator", "forward-recv",
          "backward-send", "layernorm-grads-all-reduce", "embedding-grads-all-reduce", "all-grads-sync",
          "params-all-gather", "optimizer-copy-to-main-grad", "optimizer-unscale-and-check-inf",
          "optimizer-clip-main-grad", "optimizer-inner-step", "optimizer"]
base = {"forward-backward": 5400.0, "forward-compute": 1700.0, "backward-compute": 3500.0, "batch-generator": 2.5,
        "forward-recv": 40.0, "backward-send": 38.0, "layernorm-grads-all-reduce": 0.05,
        "embedding-grads-all-reduce": 0.04, "all-grads-sync": 60.0, "params-all-gather": 55.0,
        "optimizer-copy-to-main-grad": 4.0, "optimizer-unscale-and-check-inf": 3.0, "optimizer-clip-main-grad": 6.0,
        "optimizer-inner-step": 20.0, "optimizer": 45.0}
jit = [rnd.uniform(0.97, 1.03) for _ in range(997)]
with open(path, "w", buffering=1 << 22) as f:
    out = []
    out.append("using world size: 512, data-parallel size: 64, context-parallel size: 1, tensor-model-parallel size: 4, pipeline-model-parallel size: 2\n")
    out.append("------------------------ arguments ------------------------\n")
    for k in sorted(args):
        out.append("  %s %s %s\n" % (k, "." * (48 - len(k) - 1), args[k]))
    out.append("-------------------- end of arguments ---------------------\n")
    out.append("> padded vocab (size: 128000) with 256 dummy tokens (new size: 128256)\n")
    out.append("[after model, optimizer, and learning rate scheduler are built] datetime: 2025-01-06 08:00:00 \n")
    out.append("training ...\n")
    f.write("".join(out))
    written = sum(len(s) for s in out)
    t = datetime.datetime(2025, 1, 6, 8, 0, 0)
    it, loss, k = 0, 11.0, 0
    while written < target:
        chunk = []
        for _ in range(1000):
            it += 1
            k = (k + 1) % 997
            ms = 5630.0 * jit[k] if it > 3 else 9000.0
            t += datetime.timedelta(milliseconds=ms)
            loss = max(1.5, loss * 0.9995)
            lr = 3e-4 * min(1.0, it / 2000.0)
            chunk.append(" [%s] iteration %8d/  500000 | consumed samples: %12d | elapsed time per iteration (ms): %.1f |"
                         " throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: %.6E | global batch size:  1024 |"
                         " lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 |"
                         " number of nan iterations:   0 |\n"
                         % (t.strftime("%Y-%m-%d %H:%M:%S"), it, it * 1024, ms, 231.9 * 5630.0 / ms, lr,
                            loss * jit[(k * 7) % 997], 1.2 * jit[(k * 3) % 997]))
            chunk.append("(min, max) time across ranks (ms):\n")
            for n in timers:
                v = base[n] * jit[(k + len(n)) % 997]
                chunk.append("    %s: (%.2f, %.2f)\n" % ((n + " ").ljust(48, "."), v * 0.98, v))
            if it % 100 == 1:
                chunk.append("[Rank 0] (after %d iterations) memory (MB) | allocated: 31250.1 | max allocated: 52100.4 |"
                             " reserved: 60000.0 | max reserved: 61480.0\n" % it)
            if it % 500 == 0:
                chunk.append("saving checkpoint at iteration %8d to /checkpoints/llama-8b in torch_dist format\n" % it)
                chunk.append("  successfully saved checkpoint from iteration %8d to /checkpoints/llama-8b [ t 1/4, p 1/2 ]\n" % it)
            if it % 1000 == 7:
                chunk.append("/usr/local/lib/python3.10/dist-packages/torch/autograd/graph.py:744: UserWarning: "
                             "c10d::broadcast_: an autograd kernel was not registered to the Autograd key(s) but we are "
                             "trying to backprop through it.\n")
        s = "".join(chunk)
        f.write(s)
        written += len(s)
EOF
fi

bytes=$(stat -c %s "$file")
echo "log: $file, $bytes bytes ($(awk -v b="$bytes" 'BEGIN {printf "%.2f", b / 1e9}') GB)"
cat "$file" > /dev/null                                    # in the page cache: the parse is timed, not the disk
out=$(mktemp)
trap 'rm -f "$out" "$out.json"' EXIT
start=$(date +%s.%N)
/usr/bin/time -v java -Xmx512m -jar "$jar" parse "$file" > "$out.json" 2> "$out"
end=$(date +%s.%N)
secs=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.1f", b - a}')
rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$out")
echo "parsed in $secs s: $(awk -v b="$bytes" -v s="$secs" 'BEGIN {printf "%.0f", b / 1e6 / s}') MB/s," \
     "max RSS $((rss / 1024)) MiB (heap limit 512 MB)"
python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); print("format", p["format"], "steps", p["steps"], "steady", p["steady_steps"], "step_time_s", p["metrics"].get("step_time_s"), "warnings", p["warnings"])' "$out.json"
