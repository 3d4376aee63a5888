#!/usr/bin/env bash
# Measures ctxtrim's file selection against the BM25 baseline on tasks mined
# from a repository's commit history (see ../shared/eval/relevance/README.md).
#
#   scripts/eval-relevance.sh TASKS.jsonl REPO_DIR [run.py flags: --limit N --jobs N --budgets ...]
#
# Builds ctxtrim, runs the baseline and ctxtrim on the same tasks and budgets,
# and prints both summaries and the goal check: at every budget, ctxtrim's
# share of tasks whose changed lines are not all shown must be at most half
# of BM25's (whose whole files make its lines all % its all %), and its mean
# line recall higher. The column "either" is the share of tasks whose lines
# all show in ctxtrim's prompt or in BM25's: when even that is short of the
# goal, taking the better of the two prompts task by task would not reach
# it. A second table splits lines all % by how many files the commit
# changes. Results (JSON) go to $OUT (default /tmp/ctxtrim-eval).
# CPU heavy: on a shared machine start with --limit 20 --jobs 1.
set -euo pipefail
if (( $# < 2 )); then
  sed -n '2,15p' "$0" >&2
  exit 2
fi
tasks=$(realpath "$1"); repo=$(realpath "$2"); shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
kit=${EVAL_DIR:-$root/../shared/eval/relevance}
out=${OUT:-/tmp/ctxtrim-eval}
mkdir -p "$out"
name=$(basename "$tasks" .jsonl)
(cd "$root" && go build -o "$out/ctxtrim" .)
cd "$kit"
python3 run.py --tasks "$tasks" --repo "$repo" --out "$out/$name.bm25.json" "$@" -- python3 baseline_bm25.py >/dev/null
CTXTRIM="$out/ctxtrim" python3 run.py --tasks "$tasks" --repo "$repo" --out "$out/$name.ctxtrim.json" "$@" -- ./ctxtrim_cmd.sh >/dev/null
python3 - "$out/$name.bm25.json" "$out/$name.ctxtrim.json" <<'PY'
import json, sys
b, c = (json.load(open(p)) for p in sys.argv[1:3])
meta = c["meta"]
print(f"{meta.get('repo', '?')} @ {str(meta.get('repo_head') or meta.get('head', '?'))[:12]}")
print(f"{'budget':>7} {'n':>4} | {'BM25 all%':>9} {'line rec':>8} | {'ctxtrim all%':>12} {'lines all%':>10} {'line rec':>8} {'MRR':>5} {'s/task':>6} | {'either':>6} | goal")
ok = True
bruns = {t["id"]: t["runs"] for t in b["tasks"]}
for budget, cs in c["summary"].items():
    bs = b["summary"][budget]
    # Per task, the better of the two prompts.
    both = [bool(t["runs"][budget].get("all_lines")) or bool(bruns[t["id"]][budget].get("all_lines"))
            for t in c["tasks"] if budget in t["runs"] and budget in bruns.get(t["id"], {})]
    either = 100 * sum(both) / len(both) if both else 0.0
    # BM25 sends whole files: its lines all % is its all %.
    miss_b = 100 - bs["all_pct"]
    miss_c = 100 - (cs["lines_all_pct"] or 0)
    # Line recall must be higher, unless both already show every line.
    rec_c, rec_b = cs["mean_line_recall"], bs["mean_line_recall"]
    good = miss_c <= miss_b / 2 and (rec_c > rec_b or rec_c >= rec_b >= 1.0)
    ok &= good
    print(f"{budget:>7} {cs['n']:>4} | {bs['all_pct']:>9.1f} {bs['mean_line_recall']:>8.3f} | {cs['all_pct']:>12.1f} "
          f"{cs['lines_all_pct'] or 0:>10.1f} {cs['mean_line_recall']:>8.3f} {cs['mrr']:>5.3f} {cs['median_s']:>6.2f} | {either:>6.1f} | "
          f"{'ok' if good else 'MISSED'} (lines misses {miss_c:.1f}% vs <= {miss_b / 2:.1f}%)")
# The same goal by how many files the commit changes: one-file tasks are
# where ranking decides; several files need depth in each.
print("lines all % by changed files (BM25 | goal):")
for budget in c["summary"]:
    cells = []
    for k, label in ((1, "1"), (2, "2"), (3, "3"), (4, "4+")):
        ts = [t for t in c["tasks"] if min(len(t["gold_files"]), 4) == k
              and budget in t["runs"] and budget in bruns.get(t["id"], {})]
        if not ts:
            continue
        lc = 100 * sum(bool(t["runs"][budget].get("all_lines")) for t in ts) / len(ts)
        lb = 100 * sum(bool(bruns[t["id"]][budget].get("all_lines")) for t in ts) / len(ts)
        cells.append(f"{label} file{'s' if k > 1 else ''} ({len(ts)}): {lc:.0f} ({lb:.0f} | {100 - (100 - lb) / 2:.0f})")
    print(f"{budget:>7}  " + ", ".join(cells))
sys.exit(0 if ok else 1)
PY
