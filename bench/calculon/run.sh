#!/usr/bin/env bash
# Calculon llm-optimal-execution vs train-advisor search, side by side.
#
# Reproduces every run reported in RESULTS.md:
#   case 1: InternLM-7B-like model (internlm-7b.json here; 32 layers, hidden
#           4096, 32 heads, seq 2048) on 8 A100-80GB with NVLink
#           (Calculon systems/a100_80g.json), global batch 64 sequences;
#           train-advisor: internlm-7b on dgx-a100-80gb, 8 GPUs, 131072
#           tokens/step, and the run file examples/internlm-7b-nvlink-1node.yaml.
#   case 2: GPT-3 175B (Calculon models/gpt3-175B.json) on 1024 A100-80GB,
#           global batch 1536 sequences of 2048; train-advisor gpt3-175b on
#           dgx-a100-80gb, 1024 GPUs, 3145728 tokens/step.
# Every Calculon run is capped at 10 minutes (timeout 600, and the driver's own
# --deadline below that so that it can still write what it found).
# Outputs (logs + JSON) go to ./out/.
#
# Needs: Calculon exported at $CALCULON (default /tmp/calculon) from
#   git -C /work/.mirror/calculon-ai+calculon/repo archive HEAD | tar -x -C /tmp/calculon
# (commit caa4b11f8fe1fee3ba57adaacb7590d7deabd053), Debian's python3 with
# python3-numpy, python3-pandas and python3-psutil (apt), and a copy of the
# train-advisor jar at $TA_JAR (default /tmp/ta.jar).
# Total wall time: about 45 minutes on 2 cores.
set -u
cd "$(dirname "$0")"
CAL=${CALCULON:-/tmp/calculon}
TA=${TA_JAR:-/tmp/ta.jar}
PY=${PY:-/usr/bin/python3}
export PYTHONPATH=$CAL
mkdir -p out

# Run a command, log its output, wall time and load average to out/$1.log
timed() {
  local name=$1; shift
  {
    echo "# $*"
    echo "# start $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg)"
    local s e
    s=$(date +%s.%N)
    "$@"
    local rc=$?
    e=$(date +%s.%N)
    echo "# rc=$rc wall_s=$(echo "$e - $s" | bc) load: $(cut -d' ' -f1-3 /proc/loadavg)"
  } > "out/$name.log" 2>&1
  tail -3 "out/$name.log"
}

{ git -C /work/.mirror/calculon-ai+calculon/repo log -1 --format='calculon %H %ad %s'
  java -jar "$TA" --version; sha256sum "$TA"; $PY --version
  $PY -c "import numpy,pandas,psutil;print('numpy',numpy.__version__,'pandas',pandas.__version__,'psutil',psutil.__version__)"
  java -version 2>&1 | head -1; nproc; } > out/versions.txt 2>&1

APP1=internlm-7b.json
SYS=$CAL/systems/a100_80g.json
APP2=$CAL/models/gpt3-175B.json

# ---------------- case 1: InternLM-7B, 8 x A100-80GB NVLink, batch 64 --------
# space size only (Calculon's -d: loop over executions without running them)
timed case1-count $PY $CAL/bin/calculon llm-optimal-execution -d \
  $APP1 8 64 float16 $SYS out/case1-count.json
# the full search, as the CLI runs it, hard-capped at 10 minutes
timed case1-full-cli timeout 600 $PY $CAL/bin/calculon llm-optimal-execution \
  $APP1 8 64 float16 $SYS out/case1-full-cli.json -t 3
# the full search with Calculon's own space-limiting option -m (--mbs-break:
# stop growing the micro-batch once a size has no valid execution)
timed case1-full-cli-mbsbreak timeout 600 $PY $CAL/bin/calculon llm-optimal-execution \
  $APP1 8 64 float16 $SYS out/case1-full-cli-mbsbreak.json -t 3 -m
# slices, via the driver (Calculon's own search(), CLI task order)
timed case1-slice-tp1-pp1 timeout 600 $PY calculon_slice.py \
  $APP1 8 64 float16 $SYS out/case1-slice-tp1-pp1.json --tp 1 --pp 1 --deadline 570
timed case1-slice-pp1 timeout 600 $PY calculon_slice.py \
  $APP1 8 64 float16 $SYS out/case1-slice-pp1.json --pp 1 --deadline 570
# train-advisor, same problem
timed case1-ta-flags java -jar $TA search --model internlm-7b --cluster dgx-a100-80gb \
  --gpus 8 --global-batch-tokens 131072 --seq-len 2048 --top 3 --timing \
  --format json --out out/case1-ta-flags.json
java -jar $TA search --model internlm-7b --cluster dgx-a100-80gb \
  --gpus 8 --global-batch-tokens 131072 --seq-len 2048 --top 3 > out/case1-ta-flags.md 2>&1
timed case1-ta-runfile java -jar $TA search ../../examples/internlm-7b-nvlink-1node.yaml \
  --top 3 --timing --format json --out out/case1-ta-runfile.json
java -jar $TA search ../../examples/internlm-7b-nvlink-1node.yaml --top 3 \
  > out/case1-ta-runfile.md 2>&1

# ---------------- case 2: GPT-3 175B, 1024 x A100-80GB, batch 1536 ---------
timed case2-count $PY $CAL/bin/calculon llm-optimal-execution -d \
  $APP2 1024 1536 float16 $SYS out/case2-count.json
# full space in CLI order through the driver (so progress and best-so-far
# survive the cap); the plain CLI would print nothing before it ends
timed case2-full-driver timeout 600 $PY calculon_slice.py \
  $APP2 1024 1536 float16 $SYS out/case2-full-driver.json --deadline 570
timed case2-ta-flags java -jar $TA search --model gpt3-175b --cluster dgx-a100-80gb \
  --gpus 1024 --global-batch-tokens 3145728 --seq-len 2048 --top 3 --timing \
  --format json --out out/case2-ta-flags.json
java -jar $TA search --model gpt3-175b --cluster dgx-a100-80gb \
  --gpus 1024 --global-batch-tokens 3145728 --seq-len 2048 --top 3 > out/case2-ta-flags.md 2>&1

# Calculon's own stats of each tool's best layout (single evaluations)
timed evaluate $PY evaluate_layouts.py
