#!/usr/bin/env bash
# Runs the JMH benchmarks (src/test/java/dev/trainadvisor/bench) from the project folder.
# Targets: one prediction under 20 us, one fit under 2 ms on a 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -ntp -q test-compile
mvn -B -ntp -q dependency:build-classpath -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test
java -cp "target/test-classes:target/classes:$(cat target/bench.classpath)" org.openjdk.jmh.Main "${@:-dev.trainadvisor.bench}"
