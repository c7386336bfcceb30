#!/usr/bin/env bash
# Hostile sizes (issue 23): one `advise` in a fresh JVM of a run file whose name is 30 MB (issue 23 saw 125 s and
# 1.7 GB to refuse it), and of files with a 10 MB key, a 1 MB name on one YAML line, a 9,000-character name (under
# 1 MB: parsed, then refused), and a 30 MB one-line Megatron log; each 5 times, with the wall time and the peak
# resident memory from /usr/bin/time. Target: each refused (exit 2, one line) in under a second, median of 5.
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
one() {   # prints "ms KB exit" for one run
  local out
  out=$( { /usr/bin/time -f '%e %M' java -jar "$jar" advise "$1" > /dev/null 2> "$dir/err"; } 2>&1 | tail -1 || true)
  local code=0
  grep -q '^error: ' "$dir/err" && code=2
  awk -v o="$out" -v c="$code" 'BEGIN {split(o, a, " "); printf "%d %d %d\n", a[1] * 1000, a[2], c}'
}
fail=0
for f in missing.yaml name-30mb.yaml name-30mb.json key-10mb.yaml line-1mb.yaml name-9000.yaml log-30mb-line.yaml; do
  [ "$f" = missing.yaml ] || [ -f "$dir/$f" ]
  one "$dir/$f" > /dev/null   # warm-up: the jar into the file cache
  ms=(); kb=0; lines=0
  for i in 1 2 3 4 5; do
    read -r t m c < <(one "$dir/$f")
    ms+=("$t"); [ "$m" -gt "$kb" ] && kb=$m
    lines=$(wc -l < "$dir/err")
  done
  median=$(printf '%s\n' "${ms[@]}" | sort -n | sed -n 3p)
  printf '%-20s median %5d ms (runs %s ms), peak RSS %4d MB, %d line(s) on stderr: %s\n' "$f" "$median" "${ms[*]}" \
    $((kb / 1024)) "$lines" "$(head -c 160 "$dir/err" | tr '\n' ' ')"
  [ "$median" -le "$limit_ms" ] || { echo "  over the ${limit_ms} ms limit" >&2; fail=1; }
done
exit $fail
