#!/usr/bin/env bash
# Layout search speed (issue 10): the full space of a 70B model on 1,024 GPUs (target 5 s) and of a 405B model on
# 16,384 GPUs (target 30 s) on this machine, each timed from a cold JVM as the command line runs it, median of 3;
# prints the layouts visited per second. Builds nothing: run `mvn -B -ntp -q package -DskipTests` first.
set -euo pipefail
cd "$(dirname "$0")/.."
jar=target/train-advisor.jar
[ -f "$jar" ] || { echo "no $jar: build it first (mvn -B -ntp -q package -DskipTests)" >&2; exit 2; }
run() { # name limit_s args...
  local name=$1 limit=$2; shift 2
  local times=()
  for i in 1 2 3; do
    start=$(date +%s%N)
    java -jar "$jar" search "$@" --timing --top 1 --format csv > /dev/null 2> /tmp/search-timing.txt
    times+=($((($(date +%s%N) - start) / 1000000)))
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
  printf '%s: %d.%03d s end to end (limit %s s); %s\n' "$name" $((median / 1000)) $((median % 1000)) "$limit" "$(cat /tmp/search-timing.txt)"
}
run "Llama-3-70B on 1,024 H100" 5 --model llama-3-70b --cluster dgx-h100 --gpus 1024 --global-batch-tokens 8388608 --seq-len 8192
run "Llama-3.1-405B on 16,384 H100" 30 --model llama-3.1-405b --cluster dgx-h100 --gpus 16384 --global-batch-tokens 16777216 --seq-len 8192
