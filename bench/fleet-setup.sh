# Sourced by bench/batch.sh and bench/batch-memory.sh (with n and jar set): checks what they need, draws the fleet of n
# varied run files with bench/fleet.py into $dir, and makes $out for their outputs; both folders go on exit.
[ -f "$jar" ] || { echo "no $jar: build it first (mvn -B -ntp -q package -DskipTests)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian: apt-get install time)" >&2; exit 2; }
dir=$(mktemp -d)
out=$(mktemp -d)
trap 'rm -rf "$dir" "$out"' EXIT
python3 bench/fleet.py "$n" "$dir"
