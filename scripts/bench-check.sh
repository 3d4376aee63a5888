#!/usr/bin/env bash
# bench-check.sh — `ctxtrim check` (the pre-commit hook) with the default
# rules on a large repository, this tree's ctxtrim beside BASE's, in one run.
#
#   scripts/bench-check.sh REPO [BASE]
#
# REPO is a git work tree (moby, 13k files, is the issue's case); it is only
# read. BASE is a git revision of this repository whose ctxtrim is built
# beside this one (default: main). Each of RUNS rounds (default 10) runs
# both binaries once, alternating, after one warm-up each, so that the load
# of a shared machine weighs on both alike; wall milliseconds min and
# median, and the ratio of medians. Both outputs are compared first: the
# same report is the point. Goal (issue #15): <= 50 ms wall.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: scripts/bench-check.sh REPO [BASE]" >&2; exit 2; }
repo=$1
base=${2:-main}
RUNS=${RUNS:-10}
[ -d "$repo/.git" ] || [ -f "$repo/.git" ] || { echo "bench-check: $repo is not a git work tree" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "building this tree and $base..." >&2
go build -o "$tmp/new" .
mkdir -p "$tmp/base"
git archive "$base" | tar -x -C "$tmp/base"
(cd "$tmp/base" && go build -o "$tmp/old" .)

# check exits 5 when a file is over budget: that is a result, not a failure.
run() { (cd "$repo" && "$1" check >"$2" 2>&1) || [ $? -eq 5 ]; }
run "$tmp/new" "$tmp/new.out"
run "$tmp/old" "$tmp/old.out"
if ! cmp -s "$tmp/new.out" "$tmp/old.out"; then
	echo "bench-check: the reports differ (-$base +this tree):" >&2
	diff "$tmp/old.out" "$tmp/new.out" >&2 || true
fi

declare -A times
for _ in $(seq "$RUNS"); do
	for b in old new; do
		t0=$EPOCHREALTIME
		run "$tmp/$b" /dev/null
		t1=$EPOCHREALTIME
		times[$b]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) * 1000 }') "
	done
done
# stats: "min median" of the numbers on stdin.
stats() { sort -n | awk '{ a[NR] = $1 } END { printf "%s %s", a[1], a[int((NR + 1) / 2)] }'; }
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $(go version | cut -d' ' -f3)"
echo "repository: $repo ($(git -C "$repo" ls-files | wc -l) tracked files), $(grep -c . "$tmp/new.out") report lines"
echo "== ctxtrim check, default rules, $RUNS runs each (wall ms) =="
printf '%-28s %9s %9s\n' binary min median
declare -A med
for b in old new; do
	read -r mn md <<<"$(tr ' ' '\n' <<<"${times[$b]}" | grep . | stats)"
	med[$b]=$md
	label="this tree"
	[ "$b" = old ] && label="$base"
	printf '%-28s %9s %9s\n' "$label" "$mn" "$md"
done
echo "ratio of medians: $base/this tree $(awk -v a="${med[old]}" -v b="${med[new]}" 'BEGIN { printf "%.1f", a / b }')x (goal: this tree <= 50 ms)"
