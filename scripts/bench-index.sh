#!/usr/bin/env bash
# bench-index.sh — ctxtrim index, cold and warm, against repomix and a plain
# read of every tracked file, side by side in one run.
#
#   scripts/bench-index.sh [REPO...]     default: cobra go-git moby
#
# Repositories are clones at $CTXTRIM_BENCH_DIR/bench-NAME (default /tmp);
# with $CTXTRIM_MIRROR set (a directory of bare repositories named
# OWNER+NAME/repo, as the project's fetch tool makes them) a missing clone
# is made from it; a repository that is still missing is skipped.
#
# Measured (GNU time: wall, user+sys CPU, peak RSS), REPEAT times each
# (default 3), min and median reported:
#   cold     ctxtrim index with an empty cache (XDG_CACHE_HOME in a temp dir)
#   warm     ctxtrim index again, nothing changed
#   cold-all ctxtrim index --all, empty cache: vendored, generated, lock and
#            minified files are read and parsed too (moby's vendor/ is three
#            quarters of its files; repomix packs it)
#   warm-all ctxtrim index --all again
#   cat      git ls-files -z | xargs -0 cat >/dev/null   (files in page cache)
#   repomix  repomix, default options, run in the repository (its output
#            file is deleted afterwards); $REPOMIX names the binary, else it
#            is installed with npm into a temp dir. REPOMIX=skip skips it.
# One repetition runs every command once, in that order, so that the load of
# a shared machine weighs on all of them alike; ratios are of medians.
# Goals (issue #3): cold CPU <= 1/5 of repomix's CPU; warm <= 3x cat;
# peak RSS <= 200 MiB.
set -euo pipefail
cd "$(dirname "$0")/.."
REPEAT=${REPEAT:-3}
BENCH_DIR=${CTXTRIM_BENCH_DIR:-/tmp}
repos=("$@")
[ ${#repos[@]} -gt 0 ] || repos=(cobra go-git moby)
declare -A owner=([cobra]=spf13 [go-git]=go-git [moby]=moby)

TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench-index: GNU time (/usr/bin/time) is required" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/ctxtrim" .

if [ "${REPOMIX:-}" = skip ]; then
	repomix=""
elif [ -n "${REPOMIX:-}" ]; then
	repomix=$REPOMIX
elif command -v npm >/dev/null; then
	echo "installing repomix with npm into $work/npm ..." >&2
	npm install --silent --prefix "$work/npm" repomix >/dev/null 2>&1 && repomix="$work/npm/node_modules/.bin/repomix" || repomix=""
else
	repomix=""
fi
[ -n "$repomix" ] && echo "repomix $("$repomix" --version 2>/dev/null | tail -1)" >&2

# measure NAME CMD...: run CMD, append "wall cpu rss_kib" to $work/NAME.
measure() {
	local name=$1; shift
	"$TIME" -f '%e %U %S %M' -o "$work/t" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; return 1; }
	awk '{printf "%.3f %.3f %d\n", $1, $2+$3, $4}' "$work/t" >>"$work/$name"
}

# stats NAME: "min/median" of wall, of cpu, and max rss (MiB).
stats() {
	local f=$work/$1
	local n; n=$(wc -l <"$f")
	local mid=$(( (n + 1) / 2 ))
	local wall cpu rss
	wall=$(cut -d' ' -f1 "$f" | sort -n | awk -v m="$mid" 'NR==1{min=$1} NR==m{med=$1} END{printf "%s/%s", min, med}')
	cpu=$(cut -d' ' -f2 "$f" | sort -n | awk -v m="$mid" 'NR==1{min=$1} NR==m{med=$1} END{printf "%s/%s", min, med}')
	rss=$(cut -d' ' -f3 "$f" | sort -n | tail -1 | awk '{printf "%.0f", $1/1024}')
	printf '%-18s %-18s %s' "$wall" "$cpu" "$rss"
}
median() { cut -d' ' -f"$2" "$work/$1" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

printf '%-8s %-8s %-18s %-18s %s\n' repo what "wall s min/med" "cpu s min/med" "max RSS MiB"
for r in "${repos[@]}"; do
	dir=$BENCH_DIR/bench-$r
	if [ ! -d "$dir/.git" ] && [ -n "${CTXTRIM_MIRROR:-}" ] && [ -d "$CTXTRIM_MIRROR/${owner[$r]}+$r/repo" ]; then
		git clone -q "$CTXTRIM_MIRROR/${owner[$r]}+$r/repo" "$dir"
	fi
	if [ ! -d "$dir/.git" ]; then
		echo "bench-index: skipping $r: no clone at $dir" >&2
		continue
	fi
	rm -f "$work"/{cold,warm,cold-all,warm-all,cat,repomix}
	for _ in $(seq "$REPEAT"); do
		rm -rf "$work/cache" "$work/cache-all"
		XDG_CACHE_HOME=$work/cache measure cold "$work/ctxtrim" index -C "$dir"
		XDG_CACHE_HOME=$work/cache-all measure cold-all "$work/ctxtrim" index --all -C "$dir"
		XDG_CACHE_HOME=$work/cache measure warm "$work/ctxtrim" index -C "$dir"
		XDG_CACHE_HOME=$work/cache-all measure warm-all "$work/ctxtrim" index --all -C "$dir"
		measure cat sh -c "cd '$dir' && git ls-files -z | xargs -0 cat >/dev/null"
		if [ -n "$repomix" ]; then
			(cd "$dir" && measure repomix "$repomix")
			rm -f "$dir"/repomix-output.*
		fi
	done
	files() { awk -F': ' '/^  "files"/{gsub(",","",$2); print $2}' "$1"; }
	XDG_CACHE_HOME=$work/cache "$work/ctxtrim" index -C "$dir" --json >"$work/summary.json"
	XDG_CACHE_HOME=$work/cache-all "$work/ctxtrim" index --all -C "$dir" --json >"$work/summary-all.json"
	echo "# $r: $(git -C "$dir" ls-files | wc -l) tracked files; indexed $(files "$work/summary.json") by default, $(files "$work/summary-all.json") with --all; HEAD $(git -C "$dir" rev-parse --short HEAD)"
	for w in cold warm cold-all warm-all cat; do printf '%-8s %-8s %s\n' "$r" "$w" "$(stats $w)"; done
	if [ -n "$repomix" ]; then
		printf '%-8s %-8s %s\n' "$r" repomix "$(stats repomix)"
		for v in cold cold-all; do
			awk -v v="$v" -v a="$(median $v 2)" -v b="$(median repomix 2)" 'BEGIN{if (b > 0) printf "         %-8s CPU / repomix CPU = %.3f (goal <= 0.2)\n", v, a/b}'
		done
	fi
	for v in warm warm-all; do
		awk -v v="$v" -v a="$(median $v 1)" -v b="$(median cat 1)" 'BEGIN{if (b > 0) printf "         %-8s wall / cat wall   = %.2f (goal <= 3)\n", v, a/b; else printf "         %-8s wall / cat wall: below timer resolution\n", v}'
		awk -v v="$v" -v a="$(median $v 2)" -v b="$(median cat 2)" 'BEGIN{if (b > 0) printf "         %-8s CPU / cat CPU     = %.2f\n", v, a/b}'
	done
done
