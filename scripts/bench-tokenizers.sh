#!/usr/bin/env bash
# bench-tokenizers.sh compares token counters side by side, in one run, on
# the same inputs:
#
#   fast       budget.NewEncodingCounter (this repository), in a fresh Go
#              process: the budget test binary run as a probe (see TestMain
#              in budget/bpe_bench_test.go), and `ctxtrim count` when the
#              CLI builds and accepts --encoding
#   reference  github.com/pkoukk/tiktoken-go (offline ranks), same probe
#   wasm       npm `tiktoken` (the Rust tiktoken compiled to WASM) in node
#   floors     a hello-world Go binary and `node -e ""`: the cost of
#              starting a process at all
#
# Part 1, start-up: a fresh process loads the tokenizer and counts a 3-byte
# text, then a ~100 KB prompt (Go sources and non-English text); wall time
# of the whole process, RUNS runs after one warm-up, min and median, and the
# issue's two goals from the medians: `ctxtrim count` of 3 bytes within 5 ms
# of hello-world, and of 100 KB in at most 0.03 of npm tiktoken's time.
# With BASE=<git revision>, that revision's ctxtrim is built too and timed
# beside this one.
# Part 2, single-thread throughput: counting time alone (tokenizer loaded),
# best of REPS, in MB/s of wall time and per CPU second (less sensitive to
# other load on the machine), on the same files, with GOMAXPROCS=1 for Go;
# then the fast counter's parallel path on the same files as one text.
# All counts are printed so that they can be compared.
#
# Usage: scripts/bench-tokenizers.sh
# Environment: ENC (o200k_base), RUNS (15), REPS (5), PROMPT (a file to use
# as the prompt), BASE (a git revision to compare with), TIKTOKEN_DIR
# (where npm installs tiktoken; default ~/.cache/ctxtrim-bench/npm).
set -euo pipefail
cd "$(dirname "$0")/.."

ENC=${ENC:-o200k_base}
RUNS=${RUNS:-15}
REPS=${REPS:-5}
TIKTOKEN_DIR=${TIKTOKEN_DIR:-$HOME/.cache/ctxtrim-bench/npm}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
goroot=$(go env GOROOT)

# Inputs: the files, then a ~100 KB prompt of whole lines cut from them.
files=()
for f in net/http/server.go runtime/proc.go go/parser/parser.go fmt/print.go \
	strings/strings.go encoding/json/decode.go; do
	files+=("$goroot/src/$f")
done
files+=("$PWD/budget/testdata/tokens/multilingual.txt")
for lang in zh_CN ja ko ru uk de fr; do
	i=0
	for page in /usr/share/man/$lang/man1/*.gz; do
		[ -f "$page" ] || continue
		out="$tmp/man-$lang-$i.txt"
		gzip -dc "$page" >"$out" 2>/dev/null || continue
		files+=("$out")
		i=$((i + 1))
		[ $i -lt 2 ] || break
	done
done
# first_bytes N: the first whole lines of stdin totalling at least N bytes.
first_bytes() { LC_ALL=C awk -v max="$1" '{ n += length($0) + 1; print; if (n >= max) exit }'; }
prompt=${PROMPT:-$tmp/prompt.txt}
if [ -z "${PROMPT:-}" ]; then
	# Half Go source, half non-English text (whole lines), ~100 KB.
	{
		first_bytes 51200 <"${files[0]}"
		cat "${files[@]:6}" | first_bytes 51200 || true
	} >"$prompt"
fi
filelist=$(IFS=:; echo "${files[*]}")
total=$(cat "${files[@]}" | wc -c)

short=$tmp/short.txt
printf 'hi\n' >"$short"

# The Go probe, the CLI (and BASE's), and hello-world.
echo "building..." >&2
go test -c -o "$tmp/budget.test" ./budget
# build_cli DIR OUT: builds the CLI of the module in DIR; true if it counts
# with --encoding.
build_cli() {
	(cd "$1" && go build -o "$2" .) 2>/dev/null && "$2" count --encoding "$ENC" "$prompt" >/dev/null 2>&1
}
ctxtrim=""
if build_cli . "$tmp/ctxtrim"; then
	ctxtrim="$tmp/ctxtrim"
fi
base=""
if [ -n "${BASE:-}" ]; then
	mkdir -p "$tmp/base"
	git archive "$BASE" | tar -x -C "$tmp/base"
	if build_cli "$tmp/base" "$tmp/ctxtrim-base"; then
		base="$tmp/ctxtrim-base"
	else
		echo "BASE $BASE: its ctxtrim does not build or count" >&2
	fi
fi
mkdir -p "$tmp/hello"
cat >"$tmp/hello/main.go" <<'GO'
package main

import "fmt"

func main() { fmt.Println("hello") }
GO
(cd "$tmp/hello" && GOFLAGS=-mod=mod GO111MODULE=on go mod init hello >/dev/null 2>&1 && go build -o "$tmp/hello-world" .)

# npm tiktoken (WASM).
if [ ! -d "$TIKTOKEN_DIR/node_modules/tiktoken" ]; then
	echo "installing npm tiktoken in $TIKTOKEN_DIR..." >&2
	mkdir -p "$TIKTOKEN_DIR"
	npm install --prefix "$TIKTOKEN_DIR" tiktoken --no-audit --no-fund --silent >&2
fi
cat >"$tmp/count.js" <<'JS'
const { get_encoding } = require(process.env.TIKTOKEN_DIR + "/node_modules/tiktoken");
const fs = require("fs");
const [enc, reps, ...files] = process.argv.slice(2);
const e = get_encoding(enc);
const texts = files.map((f) => fs.readFileSync(f, "utf8"));
const bytes = texts.reduce((s, t) => s + Buffer.byteLength(t), 0);
let best = Infinity, bestCPU = Infinity, n = 0;
for (let r = 0; r < Math.max(1, +reps); r++) {
  const t0 = process.hrtime.bigint(), c0 = process.cpuUsage();
  n = 0;
  for (const t of texts) n += e.encode_ordinary(t).length;
  const c = process.cpuUsage(c0);
  best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
  bestCPU = Math.min(bestCPU, (c.user + c.system) / 1e3);
}
const mbs = (ms) => (bytes / 1e3 / ms).toFixed(2);
if (+reps > 0) console.log(`${n} tokens ${bytes} bytes, wall ${best.toFixed(1)} ms ${mbs(best)} MB/s, CPU ${bestCPU.toFixed(1)} ms ${mbs(bestCPU)} MB/s`);
else console.log(n);
e.free();
JS
export TIKTOKEN_DIR

# child_cpu_ms FILE: user+system CPU milliseconds of finished children, from
# the output of the shell builtin times (run in this shell, not a subshell).
child_cpu_ms() {
	tail -n 1 "$1" | awk '{
		t = 0
		for (i = 1; i <= 2; i++) { split($i, p, "m"); sub("s", "", p[2]); t += p[1] * 60 + p[2] }
		printf "%.0f", t * 1000 }'
}

# stats VALUES...: "min median" of numbers.
stats() {
	local sorted
	sorted=$(printf '%s\n' "$@" | sort -n)
	printf '%s %s' "$(head -n 1 <<<"$sorted")" "$(sed -n "$((($# + 1) / 2))p" <<<"$sorted")"
}

# time_runs LABEL CMD...: one warm-up, then RUNS timed runs of CMD; prints
# the count, min and median wall milliseconds, and min and median CPU
# milliseconds (user+system); records the medians.
declare -A median cpumedian
time_runs() {
	local label=$1
	shift
	local out
	out=$("$@" | tail -n 1 | awk '{ print $1 }')
	local wall=() cpu=()
	for _ in $(seq "$RUNS"); do
		times >"$tmp/times0"
		local t0=$EPOCHREALTIME
		"$@" >/dev/null
		local t1=$EPOCHREALTIME
		times >"$tmp/times1"
		local c0 c1
		c0=$(child_cpu_ms "$tmp/times0")
		c1=$(child_cpu_ms "$tmp/times1")
		wall+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) * 1000 }')")
		cpu+=("$((c1 - c0))")
	done
	local w c
	read -r -a w <<<"$(stats "${wall[@]}")"
	read -r -a c <<<"$(stats "${cpu[@]}")"
	median[$label]=${w[1]}
	cpumedian[$label]=${c[1]}
	printf '%-34s %8s %9s %9s %9s %9s\n' "$label" "$out" "${w[0]}" "${w[1]}" "${c[0]}" "${c[1]}"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }

echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $(go version | cut -d' ' -f3); node $(node --version); tiktoken $(node -p "require('$TIKTOKEN_DIR/node_modules/tiktoken/package.json').version")"
echo
echo "== fresh process: load $ENC and count ($RUNS runs after a warm-up) =="
printf '%-34s %8s %9s %9s %9s %9s\n' "tool" "tokens" "wall min" "median" "CPU min" "median"
echo "(milliseconds; CPU = user+system time of the process)"
probe() { BUDGET_COUNT_PROBE=$1 BUDGET_COUNT_ENCODING=$ENC BUDGET_COUNT_FILES=$2 "$tmp/budget.test"; }
echo "-- $(wc -c <"$short") bytes"
time_runs "hello-world Go binary (floor)" "$tmp/hello-world"
if [ -n "$ctxtrim" ]; then
	time_runs "ctxtrim count" "$ctxtrim" count --encoding "$ENC" "$short"
fi
if [ -n "$base" ]; then
	time_runs "ctxtrim count (BASE $BASE)" "$base" count --encoding "$ENC" "$short"
fi
time_runs "fast (budget probe), short" probe fast "$short"
echo "-- $(wc -c <"$prompt") bytes"
time_runs "go test binary, no tokenizer" probe noop "$prompt"
time_runs "fast (budget probe)" probe fast "$prompt"
if [ -n "$ctxtrim" ]; then
	time_runs "ctxtrim count, 100 KB" "$ctxtrim" count --encoding "$ENC" "$prompt"
fi
if [ -n "$base" ]; then
	time_runs "ctxtrim count, 100 KB (BASE)" "$base" count --encoding "$ENC" "$prompt"
fi
time_runs "reference (pkoukk/tiktoken-go)" probe reference "$prompt"
time_runs "node, no tokenizer (floor)" node -e ""
time_runs "wasm (npm tiktoken)" node "$tmp/count.js" "$ENC" 0 "$prompt"
f="fast (budget probe)" r="reference (pkoukk/tiktoken-go)" w="wasm (npm tiktoken)"
echo "ratios of wall medians: reference/fast $(ratio "${median[$r]}" "${median[$f]}")x, wasm/fast $(ratio "${median[$w]}" "${median[$f]}")x"
echo "ratios of CPU medians:  reference/fast $(ratio "${cpumedian[$r]}" "${cpumedian[$f]}")x, wasm/fast $(ratio "${cpumedian[$w]}" "${cpumedian[$f]}")x"
if [ -n "$ctxtrim" ]; then
	h="hello-world Go binary (floor)"
	# Wall time is the goal; CPU time is shown too, being less sensitive
	# to the load of a shared machine.
	c="ctxtrim count" c100="ctxtrim count, 100 KB"
	echo "goal, ctxtrim count of $(wc -c <"$short") bytes − hello-world: $(awk -v a="${median[$c]}" -v b="${median[$h]}" 'BEGIN { printf "%.1f", a - b }') ms wall, $(awk -v a="${cpumedian[$c]}" -v b="${cpumedian[$h]}" 'BEGIN { printf "%.0f", a - b }') ms CPU (medians; goal ≤ 5 ms wall)"
	echo "goal, ctxtrim count of 100 KB / npm tiktoken: $(awk -v a="${median[$c100]}" -v b="${median[$w]}" 'BEGIN { printf "%.3f", a / b }') wall, $(awk -v a="${cpumedian[$c100]}" -v b="${cpumedian[$w]}" 'BEGIN { printf "%.3f", a / b }') CPU (medians; goal ≤ 0.03 wall)"
fi

echo
echo "== single-thread throughput, counting only, best of $REPS, on ${#files[@]} files, $total bytes =="
tp() { GOMAXPROCS=${2:-1} BUDGET_COUNT_PROBE=$1 BUDGET_COUNT_ENCODING=$ENC BUDGET_COUNT_FILES=$filelist \
	BUDGET_COUNT_THROUGHPUT=${3:-$REPS} BUDGET_COUNT_CONCAT=${4:-} "$tmp/budget.test"; }
fast=$(tp fast-serial)
ref=$(tp reference 1 1)
wasm=$(node "$tmp/count.js" "$ENC" "$REPS" "${files[@]}")
serial1=$(tp fast-serial 1 "$REPS" 1)
par=$(tp fast "$(nproc)" "$REPS" 1)
printf '%-34s %s\n' "fast (GOMAXPROCS=1)" "$fast" "reference (GOMAXPROCS=1, 1 run)" "$ref" "wasm (npm tiktoken)" "$wasm"
mbs() { awk '{ print $(NF-1) }' <<<"$1"; }                      # MB/s per CPU second
wmbs() { sed 's/.*wall [0-9.]* ms \([0-9.]*\) MB.*/\1/' <<<"$1"; } # MB/s of wall time
echo "ratios (CPU):  fast/wasm $(ratio "$(mbs "$fast")" "$(mbs "$wasm")")x, fast/reference $(ratio "$(mbs "$fast")" "$(mbs "$ref")")x"
echo "ratios (wall): fast/wasm $(ratio "$(wmbs "$fast")" "$(wmbs "$wasm")")x, fast/reference $(ratio "$(wmbs "$fast")" "$(wmbs "$ref")")x"
echo
echo "== parallel counting: the same files as one text =="
printf '%-34s %s\n' "fast serial (GOMAXPROCS=1)" "$serial1" "fast parallel (GOMAXPROCS=$(nproc))" "$par"
echo "ratio (wall): parallel/serial $(ratio "$(wmbs "$par")" "$(wmbs "$serial1")")x"
