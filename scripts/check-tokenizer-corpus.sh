#!/usr/bin/env bash
# check-tokenizer-corpus.sh checks that budget's fast token counter counts
# exactly what the reference (github.com/pkoukk/tiktoken-go) counts, for
# cl100k_base and o200k_base, on every file of $(go env GOROOT)/src plus the
# non-English text found on this machine (localized man pages, decompressed)
# and budget/testdata/tokens. Each file is also counted cut at every safe
# parallel boundary. It prints one line per encoding and exits non-zero on
# any difference.
#
# Usage: scripts/check-tokenizer-corpus.sh [extra dirs...]
# Environment: BUDGET_CORPUS_MAX_FILE (bytes, default 8 MiB),
# BUDGET_CORPUS_ENCODINGS (default cl100k_base,o200k_base).
set -euo pipefail
cd "$(dirname "$0")/.."

dirs="$(go env GOROOT)/src:$PWD/budget/testdata/tokens"
for d in /usr/share/man/*; do
	case "$(basename "$d")" in
	man*) ;;                              # English sections
	*) [ -d "$d" ] && dirs="$dirs:$d" ;;  # ja, ko, zh_CN, ru, uk, de, fr, ...
	esac
done
for d in "$@"; do dirs="$dirs:$d"; done

echo "corpus: ${dirs//:/ }"
BUDGET_CORPUS="$dirs" go test ./budget -run '^TestCorpusFull$' -count=1 -timeout 0 -v |
	grep -v -e '^=== RUN' -e '^--- PASS'
