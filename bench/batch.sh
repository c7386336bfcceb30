#!/usr/bin/env bash
# Fleet speed (issue 22, item 6: 1 ms a run or less on this 2-core machine, 10,000 varied runs): advises N run files
# (default 10,000) drawn by bench/fleet.py (seeded: the same fleet every time; a few hundred layouts, many runs of each
# with their own measurements, 15% one of a kind, 5% with a training log: the script says why) in one `batch` from a
# cold JVM, as a user runs it, and prints the wall time, the milliseconds a run (the whole command, JVM start included,
# over N), the CPU time (user and system) and the peak resident set size. As the README runs it: bin/train-advisor
# (batch on the throughput collector with a bounded heap, the class-data archive); JAR=path times `java -jar path`
# instead, as the JVM starts it without options. FORMAT (default csv) is the report's format; REPEAT (default 3) how
# many times to run it, back to back on the one fleet: the median is the reading, as bench/coldstart.sh's is the median
# of five, since the machine is shared and one batch can fall in a slow minute (the 62nd stop: one of eight batches of
# a build read 1.61 ms a run, the others 0.78-0.94; its CPU time 26.7 s, theirs 14.9-18.0 s).
# Builds nothing: run `mvn -B -ntp -q package -DskipTests` first.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}
format=${FORMAT:-csv}
jar=${JAR:-target/train-advisor.jar}
if [ -n "${JAR:-}" ]; then cmd=(java -jar "$jar"); else cmd=(bin/train-advisor); fi
repeat=${REPEAT:-3}
limit_ms=1
. bench/fleet-setup.sh
echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); java $(java -version 2>&1 | head -1 | cut -d'"' -f2); ${cmd[*]}"
walls=()
for i in $(seq 1 "$repeat"); do
  code=0
  /usr/bin/time -o "$out/time" -f '%e %M %U %S' "${cmd[@]}" batch "$dir" --format "$format" \
      --out "$out/report.$format" 2> "$out/err" || code=$?
  read -r wall kb user sys < <(tail -1 "$out/time")
  ms=$(awk -v w="$wall" 'BEGIN {printf "%d", w * 1000}')
  walls+=("$ms")
  # the CPU time beside the wall time: the batch keeps both cores busy, so a reading over the limit with the CPU time
  # about twice the wall time is a slow spell of the host (the same build's CPU time moves by a half between spells:
  # docs/development.md), not cores left idle
  per=$(awk -v w="$ms" -v n="$n" 'BEGIN {print w / n}')
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')
  printf 'run %d: %s s, %.2f ms a run, CPU %.1f s (user %s, system %s), peak RSS %d MB, exit %d, %d line(s) on %s\n' \
    "$i" "$wall" "$per" "$cpu" "$user" "$sys" $((kb / 1024)) "$code" "$(wc -l < "$out/err")" stderr
  grep -E '^error' "$out/err" | head -3 || true
done
median=$(printf '%s\n' "${walls[@]}" | sort -n | sed -n "$(((repeat + 1) / 2))p")
per=$(awk -v w="$median" -v n="$n" 'BEGIN {printf "%.2f", w / n}')
echo "median: $per ms a run ($n runs, $((median / 1000)).$(printf '%03d' $((median % 1000))) s; limit $limit_ms ms a run)"
awk -v p="$per" -v l="$limit_ms" 'BEGIN {exit !(p <= l)}' || { echo "over the limit" >&2; exit 1; }
