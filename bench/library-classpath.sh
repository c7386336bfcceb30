#!/usr/bin/env bash
# The runtime class path that a project depending on train-advisor gets from Maven: what a library user's build puts
# on its class path, optional dependencies (picocli: only the command line uses it) left out
# as Maven leaves them out. It resolves a throwaway consumer project against this pom in a local repository
# that holds this pom (and an empty jar) as dev.trainadvisor:train-advisor and reads every other artifact from
# ~/.m2/repository through symbolic links, so that ~/.m2 gets no copy of this build.
#
#   bench/library-classpath.sh [OUT]   writes the class path, one line of ':'-separated jars, to OUT
#                                      (default target/library-classpath.txt), and prints the jar count and size
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-target/library-classpath.txt}")
m2=${M2_REPO:-$HOME/.m2/repository}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# a local repository: ~/.m2's artifacts by link, this build's coordinates of its own
mkdir -p "$work/repo/dev" "$work/empty"
for e in "$m2"/*; do [ "$(basename "$e")" = dev ] || ln -s "$e" "$work/repo/$(basename "$e")"; done
if [ -d "$m2/dev" ]; then
  for e in "$m2"/dev/*; do [ "$(basename "$e")" = trainadvisor ] || ln -s "$e" "$work/repo/dev/$(basename "$e")"; done
fi
jar cf "$work/empty.jar" -C "$work/empty" .
mvn -B -ntp -q -Dstyle.color=never -Dmaven.repo.local="$work/repo" install:install-file -Dfile="$work/empty.jar" -DpomFile=pom.xml \
    > "$work/mvn.log" 2>&1 || { cat "$work/mvn.log"; exit 1; }

version=$(sed -n '/<artifactId>train-advisor<\/artifactId>/{n;s/.*<version>\(.*\)<\/version>.*/\1/p;q}' pom.xml)
cat > "$work/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>check</groupId>
  <artifactId>library-user</artifactId>
  <version>1</version>
  <dependencies>
    <dependency>
      <groupId>dev.trainadvisor</groupId>
      <artifactId>train-advisor</artifactId>
      <version>$version</version>
    </dependency>
  </dependencies>
</project>
POM
mvn -B -ntp -q -Dstyle.color=never -Dmaven.repo.local="$work/repo" -f "$work/pom.xml" dependency:build-classpath \
    -DincludeScope=runtime -Dmdep.outputFile="$work/cp.txt" > "$work/mvn.log" 2>&1 || { cat "$work/mvn.log"; exit 1; }
# the jars as ~/.m2 paths, without this build's own (empty) jar
tr ':' '\n' < "$work/cp.txt" | grep -v '/dev/trainadvisor/train-advisor/' | sed "s#^$work/repo#$m2#" | paste -sd: > "$out"
n=$(tr ':' '\n' < "$out" | grep -c .)
bytes=$(tr ':' '\n' < "$out" | xargs -r stat -L -c %s | awk '{s += $1} END {print s + 0}')
echo "$n jars, $bytes bytes: $out"
