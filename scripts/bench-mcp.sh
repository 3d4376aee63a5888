#!/usr/bin/env bash
# bench-mcp.sh — ctxtrim mcp on a repository: start-up, first and warm
# select_context, and the size of each tool's result at its default budget,
# speaking JSON-RPC to the real binary over stdio (a bash coprocess).
#
#   scripts/bench-mcp.sh [REPO]     default: $CTXTRIM_BENCH_DIR/bench-moby (/tmp)
#
# Measured REPEAT times (default 5), min and median reported, in one run:
#   start-up      exec of "ctxtrim mcp" to its initialize response
#   first cold    start-up + the first select_context, empty slicer cache
#                 (XDG_CACHE_HOME in a temp dir): the index is built
#   first warm    the same with the cache of the previous runs: the index is
#                 built from the cache (what a new Codex session sees)
#   call warm     a second select_context in the same server: the index is
#                 reused (one stat per file)
#   call changed  a select_context after a file of the repository was
#                 touched (its mtime: the clone is the benchmark's): the
#                 index is rebuilt (warm)
#   cli warm      for comparison, one "ctxtrim -budget 7200 TASK" process
#                 (the budget of select_context's first round for Codex),
#                 warm cache: index and select from scratch
# and once, as the client "codex-mcp-client" (Codex's name, hence its
# defaults), the bytes and o200k tokens of each tool's result as JSON.
# Needs jq; builds ctxtrim into a temp dir unless $CTXTRIM names a binary.
set -euo pipefail
cd "$(dirname "$0")/.."
REPEAT=${REPEAT:-5}
repo=${1:-${CTXTRIM_BENCH_DIR:-/tmp}/bench-moby}
[ -d "$repo" ] || { echo "bench-mcp: no repository at $repo" >&2; exit 1; }
command -v jq >/dev/null || { echo "bench-mcp: jq is required" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=${CTXTRIM:-}
if [ -z "$bin" ]; then
	bin=$work/ctxtrim
	go build -o "$bin" .
fi
task="The network DNS resolver returns NXDOMAIN for swarm service names after a node rejoins; fix the networkdb lookup."
touchfile=$(cd "$repo" && git ls-files '*.go' | awk 'NR == 1')

now() { echo "${EPOCHREALTIME/./}"; } # microseconds
init='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"codex-mcp-client","version":"bench"}}}'
initialized='{"jsonrpc":"2.0","method":"notifications/initialized"}'
call() { # id tool arguments-json
	printf '%s' "$3" >"$work/args.json"
	jq -cn --argjson id "$1" --arg name "$2" --slurpfile args "$work/args.json" '{jsonrpc:"2.0",id:$id,method:"tools/call",params:{name:$name,arguments:$args[0]}}'
}
select_args=$(jq -cn --arg task "$task" '{task:$task}')

# start: starts the server in $repo (env in "$@"), sends initialize and
# sets t_start (exec) and t_init (response).
start() {
	t_start=$(now)
	coproc SRV { cd "$repo" && exec env "$@" "$bin" mcp 2>>"$work/stderr"; }
	echo "$init" >&"${SRV[1]}"
	read -r _ <&"${SRV[0]}"
	t_init=$(now)
	echo "$initialized" >&"${SRV[1]}"
}
# ask id tool args: sends a call, reads its response into $resp (skipping
# anything else the server sends), sets $dt (µs).
ask() {
	local t0
	t0=$(now)
	call "$1" "$2" "$3" >&"${SRV[1]}"
	while read -r resp <&"${SRV[0]}"; do
		[ "$(jq -r '.id // empty' <<<"$resp")" = "$1" ] && break
	done
	dt=$(($(now) - t0))
	if [ "$(jq -r '.result.isError // false' <<<"$resp")" = true ] || [ "$(jq -r 'has("error")' <<<"$resp")" = true ]; then
		echo "bench-mcp: $2 failed: $(jq -c '.error // .result.content' <<<"$resp")" >&2
		exit 1
	fi
}
stop() {
	exec {SRV[1]}>&-
	wait "$SRV_PID" 2>/dev/null || true
}

declare -A samples
add() { samples[$1]+="$2 "; }
for ((i = 0; i < REPEAT; i++)); do
	cold=$work/cache-$i
	mkdir -p "$cold"
	start XDG_CACHE_HOME="$cold"
	add start-up $((t_init - t_start))
	ask 1 select_context "$select_args"
	add "first cold" $(($(now) - t_start))
	stop

	start
	ask 1 select_context "$select_args"
	add "first warm" $(($(now) - t_start))
	ask 2 select_context "$select_args"
	add "call warm" "$dt"
	touch "$repo/$touchfile"
	ask 3 select_context "$select_args"
	add "call changed" "$dt"
	stop

	t0=$(now)
	"$bin" -C "$repo" -budget 7200 "$task" >/dev/null
	add "cli warm" $(($(now) - t0))
done

stats() { # µs samples → "min X ms, median Y ms"
	tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{a[NR]=$1} END {printf "min %6.0f ms  median %6.0f ms  (n=%d)\n", a[1]/1000, a[int((NR+1)/2)]/1000, NR}'
}
echo "ctxtrim mcp on $repo ($(cd "$repo" && git ls-files | wc -l) tracked files), $REPEAT runs:"
for k in start-up "first cold" "first warm" "call warm" "call changed" "cli warm"; do
	printf '  %-13s %s\n' "$k" "$(stats "${samples[$k]}")"
done

# Result sizes at the default budgets, as Codex (the smallest limits).
count() { "$bin" count -encoding o200k_base; }
for i in $(seq 1 4000); do echo "2026-11-29T17:00:00Z worker-$((i % 7)) request id=$i status=200 latency=$((i * 13 % 900))ms"; done >"$work/long.log"
sizeid=10
start
echo "result sizes as JSON at the default budget (client codex-mcp-client):"
size() { # name tool args
	ask $((++sizeid)) "$2" "$3"
	local js
	js=$(jq -c '.result.structuredContent' <<<"$resp")
	printf '  %-34s %7d bytes  %6d tokens\n' "$1" "$(printf %s "$js" | wc -c)" "$(printf %s "$js" | count)"
}
size "select_context" select_context "$select_args"
size "count_tokens (3 files + text)" count_tokens "$(jq -cn --arg f "$touchfile" '{text:"hello",paths:[$f,"README.md","go.mod"]}')"
size "fit_text (4,000 log lines)" fit_text "$(jq -cn --rawfile t "$work/long.log" '{text:$t}')"
size "split_task manifest (HEAD~20..HEAD)" split_task '{"range":"HEAD~20..HEAD"}'
size "split_task part 1" split_task '{"range":"HEAD~20..HEAD","part":1}'
if "$bin" help mcp 2>/dev/null | grep -q check_prompt_files; then
	size "check_prompt_files" check_prompt_files '{}'
fi
stop
