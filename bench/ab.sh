#!/usr/bin/env bash
# Two builds, or two sets of JVM options, compared on the batch benchmark's fleet (issue 22, item 6) with the noise of
# this shared machine taken out: the two batches run at the same time, each from a cold JVM as bin/train-advisor runs
# it, so that a slow spell of the machine slows both alike. Run one after the other, the same build's 10,000-run batch
# took 17 to 25 s within an hour (its CPU time 30 to 44 s: the host's speed moves, not only the load); run side by side,
# the same build against itself came within 1% in wall time and 2% in CPU time, pair after pair, and the medians of
# four pairs within 0.4% (docs/development.md).
# The pairs alternate which starts first; what is printed per pair, and as the median over the pairs, is each side's
# wall and CPU time and B over A. Side by side each batch has about one core, so the ratio is that of the work each
# does (compilers included), not a solo batch's wall time; bench/batch.sh times that.
# Not for a change of the number of threads: a side with more takes a larger share of the cores from the other.
#
#   bench/ab.sh A B [N]     A, B: repository roots, each built (mvn -B -ntp -q package -DskipTests); N runs (10,000)
#   OPTS_A=... OPTS_B=...   JVM options of each side (TRAIN_ADVISOR_JAVA_OPTS); B may be A's root with other options
#   PAIRS=4                 how many pairs (default 4)
#   ALLOW_DIFF=1            reports may differ: a probe that leaves part of the advice out, to see what that part costs
#   PAUSE=S                 seconds to wait before each pair (default 0): the memory a batch frees is handed back to the
#                           host after a few seconds, and a batch that follows a pause pays to touch it again (the first
#                           run of bench/batch.sh, a user's one batch), which back-to-back pairs do not see
#
# Exits 1 when the two sides' reports differ (a speed-up must not change the advice) unless ALLOW_DIFF is set; 2 on a
# missing build or a batch that fails (its first lines of standard error shown).
set -euo pipefail
a=$(cd "${1:?usage: bench/ab.sh A B [N]}" && pwd -P)
b=$(cd "${2:?usage: bench/ab.sh A B [N]}" && pwd -P)
cd "$(dirname "$0")/.."
n=${3:-10000}
pairs=${PAIRS:-4}
[ -f "$b/target/train-advisor.jar" ] || { echo "no $b/target/train-advisor.jar: build it first" >&2; exit 2; }
jar=$a/target/train-advisor.jar
. bench/fleet-setup.sh   # checks A's build, draws the fleet into $dir, makes $out; both go on exit
echo "$(nproc) cores; A: $a ${OPTS_A:-}; B: $b ${OPTS_B:-}"

side() {   # side NAME ROOT OPTS: one batch, its wall and CPU seconds written to $out/NAME.time, its exit code to NAME.rc
  local code=0
  TRAIN_ADVISOR_JAVA_OPTS="$3" /usr/bin/time -o "$out/$1.time" -f '%e %U %S' "$2/bin/train-advisor" batch "$dir" \
      --format csv --out "$out/$1.csv" 2> "$out/$1.err" || code=$?
  echo "$code" > "$out/$1.rc"
}

ratios_wall=() ratios_cpu=()
same="reports identical"
for i in $(seq 1 "$pairs"); do
  sleep "${PAUSE:-0}"
  if [ $((i % 2)) = 1 ]; then
    side A "$a" "${OPTS_A:-}" & pa=$!; side B "$b" "${OPTS_B:-}" & pb=$!
  else
    side B "$b" "${OPTS_B:-}" & pb=$!; side A "$a" "${OPTS_A:-}" & pa=$!
  fi
  wait "$pa"; wait "$pb"
  for x in A B; do
    [ "$(cat "$out/$x.rc")" = 0 ] || { echo "side $x exited $(cat "$out/$x.rc"):" >&2; grep -v '^ *Command' "$out/$x.err" | head -5 >&2; exit 2; }
  done
  read -r wa ua sa < <(tail -1 "$out/A.time")
  read -r wb ub sb < <(tail -1 "$out/B.time")
  ca=$(awk -v u="$ua" -v s="$sa" 'BEGIN {print u + s}')
  cb=$(awk -v u="$ub" -v s="$sb" 'BEGIN {print u + s}')
  rw=$(awk -v x="$wa" -v y="$wb" 'BEGIN {printf "%.4f", y / x}')
  rc=$(awk -v x="$ca" -v y="$cb" 'BEGIN {printf "%.4f", y / x}')
  ratios_wall+=("$rw")
  ratios_cpu+=("$rc")
  printf 'pair %d: A %6.2f s wall %6.2f s CPU | B %6.2f s wall %6.2f s CPU | B/A wall %s CPU %s\n' "$i" "$wa" "$ca" "$wb" \
      "$cb" "$rw" "$rc"
  if ! cmp -s "$out/A.csv" "$out/B.csv"; then
    same="reports differ"
    [ -n "${ALLOW_DIFF:-}" ] || { echo "the two reports differ (diff $out/A.csv $out/B.csv)" >&2; trap - EXIT; exit 1; }
  fi
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
echo "median B/A over $pairs pairs: wall $(median "${ratios_wall[@]}"), CPU $(median "${ratios_cpu[@]}"); $same"
