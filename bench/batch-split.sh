#!/usr/bin/env bash
# Where a batch's time goes (issue 22, item 6): its fixed cost (the JVM's start, the rule base, and the warm-up, when
# the compilers take most of the two cores and the advice runs interpreted or in C1's code) and its marginal cost (a run
# advised once the code is compiled). Advises fleets of N and 2N varied run files (default 10,000 and 20,000, drawn by
# bench/fleet.py with its fixed seed, as bench/batch.sh draws them) through bin/train-advisor, alternated REPEAT times
# (default 2: the machine is shared, and has slow spells), and from the medians prints
#   marginal = (T(2N) - T(N)) / N   and   fixed = 2 T(N) - T(2N),
# so that T(N) = fixed + N x marginal. bench/batch.sh's 1 ms a run at N runs needs fixed + N x marginal <= N ms.
# Builds nothing: run `mvn -B -ntp -q package -DskipTests` first.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}
repeat=${REPEAT:-2}
[ -f target/train-advisor.jar ] || { echo "no target/train-advisor.jar: build it first (mvn -B -ntp -q package -DskipTests)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian: apt-get install time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 bench/fleet.py "$n" "$work/one"
python3 bench/fleet.py $((2 * n)) "$work/two"
echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); java $(java -version 2>&1 | head -1 | cut -d'"' -f2)"
ones=() twos=()
for i in $(seq 1 "$repeat"); do
  for k in one two; do
    /usr/bin/time -o "$work/time" -f '%e %U %S' bin/train-advisor batch "$work/$k" --format csv --out "$work/report.csv" \
        2> "$work/err" || { echo "batch of $k failed:" >&2; head -3 "$work/err" >&2; exit 1; }
    read -r wall user sys < "$work/time"
    ms=$(awk -v w="$wall" 'BEGIN {printf "%d", w * 1000}')
    if [ "$k" = one ]; then ones+=("$ms"); runs=$n; else twos+=("$ms"); runs=$((2 * n)); fi
    printf '%6d runs: %s s wall, %s s CPU\n' "$runs" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')"
  done
done
median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }
t1=$(median "${ones[@]}")
t2=$(median "${twos[@]}")
awk -v t1="$t1" -v t2="$t2" -v n="$n" 'BEGIN {
  m = (t2 - t1) / n; f = 2 * t1 - t2
  printf "median %d runs %.2f s, %d runs %.2f s: marginal %.2f ms a run, fixed %.1f s (%.2f ms a run of %d)\n", n, t1 / 1000, 2 * n, t2 / 1000, m, f / 1000, f / n, n
}'
