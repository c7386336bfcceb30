#!/usr/bin/env bash
# Cold start: one `advise` of the PCIe example in a fresh JVM, as the README runs it (bin/train-advisor, which maps the
# class-data archive `mvn package` records, target/train-advisor.jsa, and runs a short command on the client compiler),
# 5 times after one discarded run (the jar and the JDK into the file cache); the median must be under 0.8 s on this
# 2-core machine (issue 22). Then the same with `java -jar target/train-advisor.jar` alone, for comparison (no limit).
# Builds nothing: run `mvn -B -ntp -q package -DskipTests` first. LAUNCHER and JAR time another build.
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=${LAUNCHER:-bin/train-advisor}
jar=${JAR:-target/train-advisor.jar}
limit_ms=800
[ -f "$jar" ] || { echo "no $jar: build it first (mvn -B -ntp -q package -DskipTests)" >&2; exit 2; }
[ -f "${jar%.jar}.jsa" ] || echo "note: no ${jar%.jar}.jsa beside the jar (built before the archive was packaged?): the launcher runs without it" >&2
run=examples/internlm-7b-pcie-1node.yaml
median5() {   # the median of five timed runs of `advise` by the command given, after one discarded
  "$@" advise "$run" --format json > /dev/null
  local times=() start ms
  for i in 1 2 3 4 5; do
    start=$(date +%s%N)
    "$@" advise "$run" --format json > /dev/null
    ms=$((($(date +%s%N) - start) / 1000000))
    times+=("$ms")
  done
  echo "$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p) ${times[*]}"
}
fmt() { printf '%d.%03d s' $(($1 / 1000)) $(($1 % 1000)); }
echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
read -r median runs < <(median5 "$launcher")
echo "as the README runs it ($launcher): median $(fmt "$median") (runs in ms: $runs; limit $(fmt $limit_ms))"
read -r plain plainruns < <(median5 java -jar "$jar")
echo "java -jar $jar: median $(fmt "$plain") (runs in ms: $plainruns)"
[ "$median" -le "$limit_ms" ] || { echo "cold start over the limit" >&2; exit 1; }
