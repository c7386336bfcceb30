#!/usr/bin/env bash
# Cold start: one `advise` in a fresh JVM, as the README runs it (target: median of 5 under 1.5 s on this 2-core
# machine). Builds nothing: run `mvn -B -ntp -q package -DskipTests` first.
set -euo pipefail
cd "$(dirname "$0")/.."
jar=target/train-advisor.jar
limit_ms=1500
[ -f "$jar" ] || { echo "no $jar: build it first (mvn -B -ntp -q package -DskipTests)" >&2; exit 2; }
advise() { java -jar "$jar" advise examples/internlm-7b-pcie-1node.yaml --format json > /dev/null; }
advise # warm-up, discarded: brings the jar and the JDK into the file cache
times=()
for i in 1 2 3 4 5; do
  start=$(date +%s%N)
  advise
  ms=$((($(date +%s%N) - start) / 1000000))
  times+=("$ms")
  printf 'run %d: %d.%03d s\n' "$i" $((ms / 1000)) $((ms % 1000))
done
median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
printf 'median: %d.%03d s (limit %d.%03d s)\n' $((median / 1000)) $((median % 1000)) $((limit_ms / 1000)) $((limit_ms % 1000))
[ "$median" -le "$limit_ms" ] || { echo "cold start over the limit" >&2; exit 1; }
