#!/usr/bin/env bash
# Cold start: one `advise` in a fresh JVM, as the README runs it (issue 22 target: median of 5 under 0.8 s on this
# 2-core machine). Then the same with the class-data-sharing archive a user can make once (Java 17 AppCDS: the classes
# of a run of `advise` mapped from target/train-advisor.jsa rather than loaded and verified again; the JVM's client
# compiler alone, which a one-second command does not outlive). A JAR cannot pass JVM options; the java launcher takes
# them from JDK_JAVA_OPTIONS, so the README's command stays as it is:
#   java -XX:ArchiveClassesAtExit=target/train-advisor.jsa -jar target/train-advisor.jar advise examples/internlm-7b-pcie-1node.yaml > /dev/null
#   export JDK_JAVA_OPTIONS="-XX:SharedArchiveFile=target/train-advisor.jsa -XX:TieredStopAtLevel=1"
# (the launcher then notes "Picked up JDK_JAVA_OPTIONS" on standard error; a rebuilt jar makes the archive stale, and
# the JVM then runs without it). JAR another build to time; CDS=0 leaves the archive out.
# Builds nothing: run `mvn -B -ntp -q package -DskipTests` first.
set -euo pipefail
cd "$(dirname "$0")/.."
jar=${JAR:-target/train-advisor.jar}
limit_ms=800
[ -f "$jar" ] || { echo "no $jar: build it first (mvn -B -ntp -q package -DskipTests)" >&2; exit 2; }
run=examples/internlm-7b-pcie-1node.yaml
median5() {   # the median of five timed runs of `advise`, after one discarded (the jar and the JDK into the file cache)
  java "$@" -jar "$jar" advise "$run" --format json > /dev/null
  local times=() start ms
  for i in 1 2 3 4 5; do
    start=$(date +%s%N)
    java "$@" -jar "$jar" advise "$run" --format json > /dev/null
    ms=$((($(date +%s%N) - start) / 1000000))
    times+=("$ms")
  done
  echo "$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p) ${times[*]}"
}
fmt() { printf '%d.%03d s' $(($1 / 1000)) $(($1 % 1000)); }
echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
read -r median runs < <(median5)
echo "as the README runs it: median $(fmt "$median") (runs in ms: $runs; limit $(fmt $limit_ms))"
if [ "${CDS:-1}" != 0 ]; then
  jsa=$(mktemp -d)/train-advisor.jsa
  java -XX:ArchiveClassesAtExit="$jsa" -jar "$jar" advise "$run" --format json > /dev/null 2>&1
  read -r cds cdsruns < <(median5 -XX:SharedArchiveFile="$jsa" -XX:TieredStopAtLevel=1)
  echo "with the class-data archive and the client compiler (JDK_JAVA_OPTIONS): median $(fmt "$cds") (runs in ms: $cdsruns)"
  rm -rf "$(dirname "$jsa")"
fi
[ "$median" -le "$limit_ms" ] || { echo "cold start over the limit" >&2; exit 1; }
