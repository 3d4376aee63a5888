#!/usr/bin/env bash
# Measures ctxtrim split on a ~10 MB real diff: part-size spread (min/median/max
# tokens) and wall time, with -verify. The diff is built from release ranges of
# go-git/go-git (Apache-2.0), which no single range makes 10 MB, so four range
# diffs are concatenated and cut at a file boundary near 10 MB.
#
#   scripts/split-10mb.sh [GO_GIT_CLONE] [BUDGET...]
#
# GO_GIT_CLONE defaults to /tmp/gogit (clone it from a mirror or GitHub first);
# the script only reads it. Nothing here runs in go test.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=${1:-/tmp/gogit}
shift || true
budgets=("$@")
[ ${#budgets[@]} -gt 0 ] || budgets=(8000 32000 128000)
[ -d "$repo/.git" ] || { echo "no go-git clone at $repo" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/ctxtrim" .
for r in v5.0.0..v6.0.0-alpha.5 v1.0.0..v5.12.0 v4.0.0..v5.12.0 v4.0.0..v5.0.0; do
	git -C "$repo" diff "$r"
done >"$work/all.diff"
# Cut at the last "diff --git" line before 10 MiB.
limit=$((10 * 1024 * 1024))
cut=$(grep -b '^diff --git ' "$work/all.diff" | awk -F: -v l=$limit '$1 <= l { c = $1 } END { print c }')
head -c "$cut" "$work/all.diff" >"$work/10mb.diff"
echo "input: $(wc -c <"$work/10mb.diff") bytes, $(grep -c '^diff --git ' "$work/10mb.diff") file sections, $(grep -c '^@@ ' "$work/10mb.diff") hunks"
instr="$work/instructions.md"
printf 'Review this part of a large change. Report bugs, risky changes and missing tests, citing file and line.\n' >"$instr"
for b in "${budgets[@]}"; do
	start=$(date +%s.%N)
	"$work/ctxtrim" split -budget "$b" -instructions "$instr" -manifest "$work/m.json" <"$work/10mb.diff" >"$work/parts.txt" 2>"$work/err.txt" || { cat "$work/err.txt"; exit 1; }
	mid=$(date +%s.%N)
	"$work/ctxtrim" split -budget "$b" -instructions "$instr" -verify <"$work/10mb.diff" >/dev/null 2>"$work/err.txt" || { cat "$work/err.txt"; exit 1; }
	end=$(date +%s.%N)
	python3 - "$work/m.json" "$b" "$start" "$mid" "$end" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
t = m["tokens"]
p = m["parts"]
whole = sum(1 for q in p for it in q["items"] if it["whole"])
items = sum(len(q["items"]) for q in p)
start, mid, end = map(float, sys.argv[3:6])
print(f"budget {sys.argv[2]:>6}: {len(p):4d} parts, tokens min {t['min']:6d} median {t['median']:6d} max {t['max']:6d} "
      f"(min/max {t['min']/t['max']:.2f}), {whole}/{items} items whole files; "
      f"split {mid-start:.2f}s, split+verify {end-mid:.2f}s")
PY
done
