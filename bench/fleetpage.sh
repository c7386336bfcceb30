#!/usr/bin/env bash
# The fleet report of N runs (default 10,000) in headless Chromium (Debian's chromium and chromium-driver, as the
# browser tests use them): the page's size and the median of five opens (load event and a whole-page layout), issue 22's
# target about a second. Each run's report is a page of its own, as batch --out writes it; "inline" as the second
# argument puts them on the page instead where the fleet is small enough (25 runs); "load FILE" times a page written
# elsewhere (another version's fleet report).
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -ntp -q test-compile
mvn -B -ntp -q dependency:build-classpath -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test
java -cp "target/test-classes:target/classes:$(cat target/bench.classpath)" dev.trainadvisor.bench.FleetPage "${1:-10000}" "${2:-linked}"
