#!/usr/bin/env bash
# Proves that a change leaves every prompt as it was: byte for byte, on the
# tasks of an evaluation task set (../shared/eval/relevance/tasks/*.jsonl).
#
#   scripts/prompt-diff.sh BASE_REV TASKS.jsonl REPO_DIR [BUDGET...]
#
# Builds ctxtrim twice, "old" from BASE_REV (git archive, so the work tree is
# not touched) and "new" from the current work tree, both with -trimpath
# -buildvcs=false (the same sources give the same binary). For each task it
# checks REPO_DIR (a clone holding the tasks' base commits, e.g.
# `git clone --shared <mirror> /tmp/x`) out at base_commit in a detached
# linked worktree, one per job slot, moved between tasks with
# `checkout -f --detach` + `clean -ffdxq`, and runs both binaries
# as `ctxtrim -C WT -budget B [-format json] < task` for every budget
# (default 8000 16000 32000) and both formats (markdown, json). Each side has
# its own XDG_CACHE_HOME per slot (a cache cannot make them agree) and both
# an empty XDG_CONFIG_HOME (no user config). Stdout and exit code must be
# equal. Prints one line per difference (task id, budget, format, exit codes,
# the start of diff -u) and a summary line for the repo; the differing
# outputs are kept in $OUT/<set>/ (default /tmp/prompt-diff, replaced on each
# run). Environment:
#   NEW_REV=R  build "new" from commit R instead of the work tree
#              (BASE_REV=NEW_REV=HEAD: identical binaries, a nondeterminism test)
#   JOBS=2     tasks run side by side (one worktree each)
#   LIMIT=N    only the first N tasks
#   TIMEOUT=300  seconds per ctxtrim call (a timeout is exit code 124)
# Exit status: 0 no differences, 1 differences, 2 usage or harness error.
# The summary says how many Go files of the work tree differ from BASE_REV
# and whether the two binaries are identical: with identical binaries any
# difference is nondeterminism.
set -euo pipefail
if (( $# < 3 )); then
  sed -n '2,30p' "$0" >&2
  exit 2
fi
base_rev=$1
tasks=$(realpath "$2")
repo=$(realpath "$3")
shift 3
budgets=("$@")
(( ${#budgets[@]} )) || budgets=(8000 16000 32000)
jobs=${JOBS:-2}
limit=${LIMIT:-0}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/prompt-diff}

git -C "$repo" rev-parse --git-dir >/dev/null 2>&1 || { echo "prompt-diff: $repo: not a git repository" >&2; exit 2; }
base_sha=$(git -C "$root" rev-parse --verify "$base_rev^{commit}") || exit 2

tmp=$(mktemp -d "${TMPDIR:-/tmp}/prompt-diff.XXXXXX")
wts=()
cleanup() {
  local wt
  for wt in ${wts[@]+"${wts[@]}"}; do
    git -C "$repo" worktree remove --force "$wt" >/dev/null 2>&1 || true
  done
  git -C "$repo" worktree prune >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the two binaries -------------------------------------------------------
mkdir -p "$tmp/src-old" "$tmp/src-new" "$tmp/config"
if [[ -n ${NEW_REV:-} ]]; then
  new_sha=$(git -C "$root" rev-parse --verify "$NEW_REV^{commit}") || exit 2
  git -C "$root" archive "$new_sha" | tar -x -C "$tmp/src-new"
  (cd "$tmp/src-new" && go build -trimpath -buildvcs=false -o "$tmp/new" .)
  new_desc="NEW_REV=$NEW_REV (${new_sha:0:12})"
else
  # Go sources of the work tree that differ from BASE_REV, as built
  changed=$( { git -C "$root" --no-optional-locks diff --name-only "$base_sha" -- '*.go' go.mod go.sum
    git -C "$root" --no-optional-locks ls-files --others --exclude-standard -- '*.go'; } | wc -l)
  (cd "$root" && go build -trimpath -buildvcs=false -o "$tmp/new" .)
  new_desc="work tree ($changed Go files differ from old)"
fi
git -C "$root" archive "$base_sha" | tar -x -C "$tmp/src-old"
(cd "$tmp/src-old" && go build -trimpath -buildvcs=false -o "$tmp/old" .)
cmp -s "$tmp/old" "$tmp/new" && new_desc+=", identical binaries"

# --- the tasks: tN.id, tN.base, tN.txt ----------------------------------------
mkdir -p "$tmp/tasks" "$tmp/res"
n=0
while IFS= read -r line; do
  [[ -n ${line//[[:space:]]/} ]] || continue
  (( limit > 0 && n >= limit )) && break
  n=$((n + 1))
  jq -r .id <<<"$line" >"$tmp/tasks/t$n.id"
  jq -r .base_commit <<<"$line" >"$tmp/tasks/t$n.base"
  # the task text as run.py writes it: ending in a newline
  jq -j .task <<<"$line" >"$tmp/tasks/t$n.txt"
  [[ -z $(tail -c 1 "$tmp/tasks/t$n.txt") ]] || echo >>"$tmp/tasks/t$n.txt"
done <"$tasks"
(( n > 0 )) || { echo "prompt-diff: no tasks in $tasks" >&2; exit 2; }
name=$(jq -r '.repo // empty' <"$tasks" | head -n 1)
[[ -n $name ]] || name=$(basename "$tasks" .jsonl)

# One worktree per job slot, named like the repository: ctxtrim's note names
# the directory, and both sides of a task run in the same one.
(( jobs >= 1 )) || jobs=1
(( jobs <= n )) || jobs=$n
first_base=$(<"$tmp/tasks/t1.base")
for ((s = 0; s < jobs; s++)); do
  wt=$tmp/wt$s/$(basename "$repo" .git)
  mkdir -p "$tmp/wt$s"
  wts+=("$wt")
  git -C "$repo" worktree add --detach --force "$wt" "$(git -C "$repo" rev-parse HEAD)" >/dev/null 2>&1 \
    || { echo "prompt-diff: git worktree add $wt failed" >&2; exit 2; }
done
rm -rf "${out:?}/$(basename "$tasks" .jsonl)"

# --- one task (run by xargs, slot in $SLOT) -----------------------------------
# Writes $tmp/res/tN: "compared differences nonzero_exits" or "error ...";
# differences go to $tmp/res/tN.diff.
one_task() {
  local i=$1 slot=${SLOT:-0}
  local id base wt w b fmt side rc_old rc_new res=$tmp/res/t$i
  local compared=0 diffs=0 bad=0
  id=$(<"$tmp/tasks/t$i.id"); base=$(<"$tmp/tasks/t$i.base")
  wt=$tmp/wt$slot/$(basename "$repo" .git)
  w=$tmp/run$slot
  mkdir -p "$w"
  if ! git -C "$repo" cat-file -e "$base^{commit}" 2>/dev/null; then
    echo "skipped $id: base commit $base not in $repo" >"$res"; return 0
  fi
  if ! git -C "$wt" checkout -f -q --detach "$base" 2>"$w/git.err" || ! git -C "$wt" clean -ffdxq 2>>"$w/git.err"; then
    echo "error $id: checkout $base: $(tail -n 3 "$w/git.err" | tr '\n' ' ')" >"$res"; return 0
  fi
  for b in "${budgets[@]}"; do
    for fmt in markdown json; do
      local fl=()
      [[ $fmt == markdown ]] || fl=(-format "$fmt")
      for side in old new; do
        rc=0
        XDG_CACHE_HOME=$tmp/cache-$side-$slot XDG_CONFIG_HOME=$tmp/config \
          timeout "${TIMEOUT:-300}" "$tmp/$side" -C "$wt" -budget "$b" ${fl[@]+"${fl[@]}"} \
          <"$tmp/tasks/t$i.txt" >"$w/$side.out" 2>"$w/$side.err" || rc=$?
        printf -v "rc_$side" %d "$rc"
      done
      compared=$((compared + 1))
      (( rc_old == 0 || rc_old == 3 )) || bad=$((bad + 1))
      if [[ $rc_old != "$rc_new" ]] || ! cmp -s "$w/old.out" "$w/new.out"; then
        diffs=$((diffs + 1))
        {
          echo "DIFF $id budget=$b format=$fmt exit old=$rc_old new=$rc_new"
          diff -u --label old --label new "$w/old.out" "$w/new.out" | sed -n '3,10p' | cut -c1-240 | iconv -f UTF-8 -t UTF-8 -c | sed 's/^/    /'
        } >>"$res.diff"
        local keep=$out/$(basename "$tasks" .jsonl)
        mkdir -p "$keep"
        for side in old new; do
          cp "$w/$side.out" "$keep/$id.$b.$fmt.$side"
          cp "$w/$side.err" "$keep/$id.$b.$fmt.$side.stderr"
        done
      fi
    done
  done
  echo "$compared $diffs $bad" >"$res"
}
export -f one_task
export tmp repo tasks out
export budgets_s="${budgets[*]}"

t0=$SECONDS
seq 1 "$n" | xargs -P "$jobs" -n 1 --process-slot-var=SLOT \
  bash -c 'read -ra budgets <<<"$budgets_s"; one_task "$1"' _ || true

# --- report, in task order ------------------------------------------------------
compared=0 diffs=0 bad=0 skipped=0 errors=0
for ((i = 1; i <= n; i++)); do
  r=$tmp/res/t$i
  [[ -f $r.diff ]] && cat "$r.diff"
  if [[ ! -f $r ]]; then
    echo "error $(<"$tmp/tasks/t$i.id"): no result"; errors=$((errors + 1))
  elif read -r c d x <"$r" && [[ $c =~ ^[0-9]+$ ]]; then
    compared=$((compared + c)); diffs=$((diffs + d)); bad=$((bad + x))
  else
    cat "$r"
    [[ $c == skipped ]] && skipped=$((skipped + 1)) || errors=$((errors + 1))
  fi
done
summary="$name: $n tasks, $compared prompts compared (budgets ${budgets[*]} x markdown, json), $diffs differences"
summary+="; old=${base_rev} (${base_sha:0:12}), new=$new_desc; ${jobs} jobs, $((SECONDS - t0))s"
(( skipped )) && summary+="; $skipped tasks skipped"
(( errors )) && summary+="; $errors harness errors"
(( bad )) && summary+="; $bad runs exited neither 0 nor 3 (old side)"
(( diffs )) && summary+="; outputs in $out/$(basename "$tasks" .jsonl)/"
echo "$summary"
(( errors == 0 )) || exit 2
(( diffs == 0 )) || exit 1
exit 0
