#!/usr/bin/env bash
# Hostile sizes (issue 23): one `advise` in a fresh JVM of a run file whose name is 30 MB (issue 23 saw 125 s and
# 1.7 GB to refuse it), and of files with a 10 MB key, a 1 MB name on one YAML line and a 9,000-character name (under
# 1 MB: parsed, then refused); each 5 times, with the wall time and the peak resident memory from /usr/bin/time.
# Target: each refused (exit 2, one line) in under a second, median of 5. Shown beside them, not held to it: a run
# whose log is one 30 MB line (read, the line cut at 1 MB).
# For scale, the same JVM refusing a file that does not exist. Builds nothing: run
# `mvn -B -ntp -q package -DskipTests` first.
set -euo pipefail
cd "$(dirname "$0")/.."
jar=$PWD/target/train-advisor.jar
limit_ms=1000
[ -f "$jar" ] || { echo "no $jar: build it first (mvn -B -ntp -q package -DskipTests)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian: apt-get install time)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" <<'PY'
import sys, re
d = sys.argv[1]
run = open('examples/internlm-7b-pcie-1node.yaml').read()
def named(name): return re.sub(r'(?m)^name:.*$', 'name: ' + name, run)
open(d + '/name-30mb.yaml', 'w').write(named('n' * (30 << 20)))
open(d + '/name-30mb.json', 'w').write('{"name": "' + 'n' * (30 << 20) + '", "cluster": "dgx-a100-80gb"}')
open(d + '/key-10mb.yaml', 'w').write(run + 'k' * (10 << 20) + ': 1\n')
open(d + '/line-1mb.yaml', 'w').write(named('n' * ((1 << 20) - 2000)))
open(d + '/name-9000.yaml', 'w').write(named('n' * 9000))
open(d + '/log-30mb-line.yaml', 'w').write(run + 'log: one-line.log\n')
open(d + '/one-line.log', 'w').write(' [2024-01-01 00:00:01] iteration        1/ 100 | ' + 'x' * (30 << 20) + '\n')
PY
one() {   # prints "wall-ms KB exit cpu-ms" for one run
  local code=0
  /usr/bin/time -o "$dir/time" -f '%e %M %U %S' java -jar "$jar" advise "$1" > /dev/null 2> "$dir/err" || code=$?
  tail -1 "$dir/time" | awk -v c="$code" '{printf "%d %d %d %d\n", $1 * 1000, $2, c, ($3 + $4) * 1000}'
}
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
fail=0
for f in missing.yaml name-30mb.yaml name-30mb.json key-10mb.yaml line-1mb.yaml name-9000.yaml log-30mb-line.yaml; do
  [ "$f" = missing.yaml ] || [ -f "$dir/$f" ]
  one "$dir/$f" > /dev/null   # warm-up: the jar into the file cache
  ms=(); cpus=(); kb=0; lines=0; code=0
  for i in 1 2 3 4 5; do
    read -r t m code cpu < <(one "$dir/$f")
    ms+=("$t"); cpus+=("$cpu"); [ "$m" -gt "$kb" ] && kb=$m
    lines=$(wc -l < "$dir/err")
  done
  median=$(printf '%s\n' "${ms[@]}" | sort -n | sed -n 3p)
  cpu=$(printf '%s\n' "${cpus[@]}" | sort -n | sed -n 3p)
  printf '%-20s exit %d, median %5d ms wall (runs %s), %5d ms CPU, peak RSS %4d MB, %d line(s) on stderr: %s\n' "$f" "$code" \
    "$median" "${ms[*]}" "$cpu" $((kb / 1024)) "$lines" "$(head -c 120 "$dir/err" | tr '\n' ' ')"
  # the log is read, not refused: a line past 1 MB is cut (LogSource.MAX_LINE); its time is shown, not held to the limit
  [ "$f" = log-30mb-line.yaml ] || [ "$median" -le "$limit_ms" ] || { echo "  over the ${limit_ms} ms limit" >&2; fail=1; }
done
exit $fail
