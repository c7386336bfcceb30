#!/usr/bin/env bash
# Batch memory (issue 23: 3.2 GB resident over 10,000 files on the default heap; target under 1 GB for any number of
# files): advises N varied runs (default 10,000; bench/fleet.py, as bench/batch.sh draws them: the layout caches of
# issue 22 hold what a fleet's layouts share) in one folder, once per format (FORMATS, default
# "csv json md html"), on the JVM's default heap, and prints the wall time, the peak resident set size (/usr/bin/time -v)
# and the size of what it wrote. Builds nothing: run `mvn -B -ntp -q package -DskipTests` first.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}
formats=${FORMATS:-csv json md html}
jar=${JAR:-target/train-advisor.jar}
limit_mb=1024
. bench/fleet-setup.sh
echo "$n run files; $(nproc) cores; java $(java -version 2>&1 | head -1 | cut -d'"' -f2); default max heap $(java -XX:+PrintFlagsFinal -version 2>/dev/null | awk '/ MaxHeapSize /{printf "%d MB", $4/1048576}')"
fail=0
for f in $formats; do
  /usr/bin/time -v java -jar "$jar" batch "$dir" --format "$f" --out "$out/report.$f" 2> "$out/time.$f" || true
  rss=$(awk -F': ' '/Maximum resident set size/ {print int($2 / 1024)}' "$out/time.$f")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$out/time.$f")
  printf '%-5s %s wall, peak RSS %d MB, wrote %d MB (%d runs listed)\n' "$f" "$wall" "$rss" \
    $(($(stat -c %s "$out/report.$f") / 1048576)) "$(grep -c 'run-[0-9]' "$out/report.$f" || true)"
  grep -E '^(error|[0-9]+ (of|file))' "$out/time.$f" | head -3 || true
  [ "$rss" -lt "$limit_mb" ] || { echo "  over ${limit_mb} MB" >&2; fail=1; }
  rm -f "$out/report.$f"
done
exit $fail
