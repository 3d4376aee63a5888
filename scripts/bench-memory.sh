#!/usr/bin/env bash
# Measures peak memory (RSS) and throughput of the commands that hold or
# stream a whole input, against the goals of issue 12:
#
#   count    bounded by a few MB beyond its 1 MiB chunk on any input, one
#            50 MB line included
#   fit      1 GiB within 2× the input in RSS, at 20 MB/s or more
#   split    1 GiB within 2× the input in RSS, at 20 MB/s or more
#   history  a 500 MB Codex rollout within 2× the input in RSS
#
# Every command runs RUNS times (default 3), interleaved with `cat` and
# `wc -l` on the same input so that a shared machine's load weighs on all
# alike; the table gives min / median of wall time, MB/s and peak RSS, and
# RSS over the input size. Inputs are generated in a temporary directory:
# text is $GOROOT/src's Go files, repeated; the rollout is tool calls whose
# outputs also pass through in exec_command_end events, as Codex writes
# them. Nothing here runs in go test.
#
#   scripts/bench-memory.sh [RUNS]
#
# TEXT_MB (default 1024) and ROLLOUT_MB (default 500) shrink the inputs for
# a quick look.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "needs GNU time at /usr/bin/time (apt-get install time)" >&2; exit 2; }
runs=${1:-3}
text_mb=${TEXT_MB:-1024}
rollout_mb=${ROLLOUT_MB:-500}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/ctxtrim" .
gosrc=$(go env GOROOT)/src
python3 - "$work" "$gosrc" "$text_mb" "$rollout_mb" <<'PY'
import json, os, random, sys
work, gosrc, text_mb, rollout_mb = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
# Text: Go sources, sorted, repeated up to text_mb MiB.
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(gosrc) for f in fs if f.endswith(".go"))
src = b"".join(open(f, "rb").read() for f in files if os.path.isfile(f))
src = src.replace(b"\0", b"")
want = text_mb << 20
with open(os.path.join(work, "text"), "wb") as out:
    n = 0
    while n < want:
        piece = src[: want - n]
        out.write(piece)
        n += len(piece)
# One 50 MB line of words.
rng = random.Random(1)
words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9))) for _ in range(5000)]
with open(os.path.join(work, "line"), "w") as out:
    n = 0
    while n < 50_000_000:
        s = " ".join(rng.choice(words) for _ in range(1000)) + " "
        out.write(s)
        n += len(s)
# A Codex rollout.
vocab = "func return err nil if for range the request body retry server client token budget line file test".split()
def text(k):
    parts, size = [], 0
    while size < k:
        line = " ".join(rng.choice(vocab) for _ in range(12)) + "\n"
        parts.append(line)
        size += len(line)
    return "".join(parts)
outputs = [text(rng.randint(20000, 60000)) for _ in range(50)]
with open(os.path.join(work, "rollout"), "w") as out:
    def rec(t, p):
        s = json.dumps({"timestamp": "2026-01-01T00:00:00.000Z", "type": t, "payload": p}, separators=(",", ":")) + "\n"
        out.write(s)
        return len(s)
    size = rec("session_meta", {"id": "s", "cwd": "/repo", "cli_version": "0.169.0", "base_instructions": {"text": text(4000)}})
    i = 0
    while size < rollout_mb * 1_000_000:
        i += 1
        o = outputs[i % len(outputs)]
        size += rec("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "step %d: %s" % (i, text(200))}]})
        size += rec("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": text(300)}], "encrypted_content": None})
        size += rec("response_item", {"type": "function_call", "name": "exec_command", "arguments": json.dumps({"cmd": "go test ./... # %d" % i}), "call_id": "call_%d" % i})
        size += rec("response_item", {"type": "function_call_output", "call_id": "call_%d" % i, "output": o})
        size += rec("event_msg", {"type": "exec_command_end", "call_id": "call_%d" % i, "aggregated_output": o, "exit_code": 0})
        size += rec("event_msg", {"type": "token_count", "info": {"total_token_usage": {"total_tokens": 1000 * i}, "last_token_usage": {"input_tokens": 900 * i, "total_tokens": 1000 * i}}})
        size += rec("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text(400)}]})
PY
python3 - "$work" "$runs" <<'PY'
import os, statistics, subprocess, sys, time
work, runs = sys.argv[1], int(sys.argv[2])
ct = os.path.join(work, "ctxtrim")
jobs = [
    ("count, one 50 MB line", "line", [ct, "count"]),
    ("count", "text", [ct, "count"]),
    ("fit -budget 100000", "text", [ct, "fit", "-budget", "100000", "-q"]),
    ("split -text -budget 32000", "text", [ct, "split", "-text", "-budget", "32000"]),
    ("history -budget 100000", "rollout", [ct, "history", "-format", "codex", "-budget", "100000"]),
    ("cat", "text", ["cat"]),
    ("wc -l", "text", ["wc", "-l"]),
    ("cat", "rollout", ["cat"]),
]
res = {j: [] for j in range(len(jobs))}
for _ in range(runs):
    for j, (name, inp, cmd) in enumerate(jobs):
        path = os.path.join(work, inp)
        # GNU time reports the command's own peak RSS; wait4's would count
        # the forked Python before exec.
        rss_file = os.path.join(work, "rss")
        with open(path, "rb") as stdin, open(os.devnull, "wb") as null:
            start = time.monotonic()
            p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_file] + cmd, stdin=stdin, stdout=null, stderr=subprocess.DEVNULL)
            wall = time.monotonic() - start
        if p.returncode not in (0, 3):
            sys.exit(f"{name} on {inp}: exit {p.returncode}")
        rss = int(open(rss_file).read().split()[-1]) * 1024
        res[j].append((wall, rss))
print(f"{runs} runs each; wall and RSS min / median, MB/s best / median\n")
print(f"| command | input | wall s | MB/s | peak RSS MB | RSS / input |")
print(f"|---|---|---|---|---|---|")
for j, (name, inp, _) in enumerate(jobs):
    size = os.path.getsize(os.path.join(work, inp))
    walls = [w for w, _ in res[j]]
    rss = [r for _, r in res[j]]
    mbs = [size / 1e6 / w for w in walls]
    print(f"| {name} | {inp} {size/1e6:.0f} MB | {min(walls):.1f} / {statistics.median(walls):.1f} | "
          f"{max(mbs):.0f} / {statistics.median(mbs):.0f} | {min(rss)/1e6:.0f} / {statistics.median(rss)/1e6:.0f} | "
          f"{min(rss)/size:.2f} / {statistics.median(rss)/size:.2f} |")
PY
