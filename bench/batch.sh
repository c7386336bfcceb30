#!/usr/bin/env bash
# End-to-end batch benchmark (issue 4 target: 10,000 run files in under 30 s on this 2-core machine).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for i in $(seq -w 1 "$n"); do cp examples/internlm-7b-pcie-1node.yaml "$dir/run-$i.yaml"; done
[ -f target/train-advisor.jar ] || mvn -B -ntp -q package -DskipTests
start=$(date +%s.%N)
java -jar target/train-advisor.jar batch "$dir" --format csv --out "$dir/out.csv"
end=$(date +%s.%N)
echo "$n run files advised in $(echo "$end - $start" | bc) s ($(($(wc -l < "$dir/out.csv") - 1)) rows)"
