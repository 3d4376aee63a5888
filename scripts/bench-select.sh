#!/usr/bin/env bash
# Measures select on a large repository, warm (cache filled) and cold (empty
# cache), for this checkout's ctxtrim and a BASE revision side by side,
# interleaved per run; prints min / median wall and user CPU seconds.
#
#   scripts/bench-select.sh REPO_DIR [BASE_REV] [TASK]
#
# RUNS (default 5) sets the repetitions, BUDGET (default 16000) the budget.
set -euo pipefail
if (( $# < 1 )); then sed -n '2,9p' "$0" >&2; exit 2; fi
repo=$(realpath "$1"); base=${2:-}; task=${3:-"container health check exceeded timeout is not reported"}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/new" .)
bins=(new)
if [[ -n $base ]]; then
  git -C "$root" worktree add -q --detach "$tmp/base-src" "$base"
  (cd "$tmp/base-src" && go build -o "$tmp/base" .)
  git -C "$root" worktree remove --force "$tmp/base-src"
  bins+=(base)
fi
runs=${RUNS:-5} budget=${BUDGET:-16000}
cd "$repo"
for b in "${bins[@]}"; do XDG_CACHE_HOME="$tmp/cache-$b" "$tmp/$b" -budget "$budget" "$task" >/dev/null; done
for ((i = 0; i < runs; i++)); do
  for b in "${bins[@]}"; do
    /usr/bin/time -f "$b warm %e %U" -a -o "$tmp/times" env XDG_CACHE_HOME="$tmp/cache-$b" "$tmp/$b" -budget "$budget" "$task" >/dev/null
    rm -rf "$tmp/cold"
    /usr/bin/time -f "$b cold %e %U" -a -o "$tmp/times" env XDG_CACHE_HOME="$tmp/cold" "$tmp/$b" -budget "$budget" "$task" >/dev/null
  done
done
python3 - "$tmp/times" <<'PY'
import sys, statistics, collections
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    b, kind, wall, cpu = line.split()
    d[(b, kind)].append((float(wall), float(cpu)))
print(f"{'binary':8} {'cache':5} {'wall min/median s':>18} {'user CPU min/median s':>22}")
for (b, kind), v in sorted(d.items()):
    w = [x[0] for x in v]; c = [x[1] for x in v]
    print(f"{b:8} {kind:5} {min(w):8.2f} / {statistics.median(w):5.2f} {min(c):11.2f} / {statistics.median(c):5.2f}")
PY
