#!/usr/bin/env bash
# history-codex-resume.sh — check by hand that "ctxtrim history" keeps a
# Codex rollout resumable, and show the history Codex rebuilds from it.
#
# It installs @openai/codex (pinned) into a temp dir, starts a tiny stub of
# the Responses API on 127.0.0.1 that logs each request's input items, prunes
# a rollout with ctxtrim, puts it in a private CODEX_HOME and runs
# "codex exec resume". It prints the items Codex sent: they must be the
# pruned history (notice, masked outputs, no dropped turns) followed by the
# new prompt.
#
#   scripts/history-codex-resume.sh [ROLLOUT] [BUDGET]
#
# Defaults: the Codex 0.169 rollout with a compaction from
# history/testdata/transcripts, budget 5813 (drops turns inside and after
# replacement_history). Needs go, npm, python3. Not run by CI.
set -euo pipefail
cd "$(dirname "$0")/.."
ROLLOUT=${1:-history/testdata/transcripts/codex-0.169-compaction.jsonl}
BUDGET=${2:-5813}
CODEX_VERSION=${CODEX_VERSION:-0.171.0}
PORT=${PORT:-18931}
tmp=$(mktemp -d)
trap 'kill "$stub" 2>/dev/null || true; rm -rf "$tmp"' EXIT

go build -o "$tmp/ctxtrim" .
npm install --silent --no-audit --no-fund --no-save --prefix "$tmp/npm" "@openai/codex@$CODEX_VERSION" >/dev/null
codex="$tmp/npm/node_modules/.bin/codex"

cat >"$tmp/stub.py" <<'EOF'
import json, sys, http.server
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        req = json.loads(self.rfile.read(int(self.headers.get('Content-Length', 0))))
        with open(sys.argv[2], 'a') as f:
            f.write(json.dumps(req.get('input')) + '\n')
        item = {"type": "message", "role": "assistant", "id": "msg_s", "status": "completed",
                "content": [{"type": "output_text", "text": "STUB-OK", "annotations": []}]}
        evs = [{"type": "response.created", "response": {"id": "resp_s"}},
               {"type": "response.output_item.done", "output_index": 0, "item": item},
               {"type": "response.completed", "response": {"id": "resp_s", "usage": {
                   "input_tokens": 1, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 1,
                   "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 2}}}]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for e in evs:
            self.wfile.write(("event: %s\ndata: %s\n\n" % (e["type"], json.dumps(e))).encode())
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
EOF
python3 "$tmp/stub.py" "$PORT" "$tmp/requests.jsonl" &
stub=$!

home="$tmp/home"
mkdir -p "$home" "$tmp/work"
cat >"$home/config.toml" <<EOF
model = "gpt-5.5"
model_provider = "stub"
approval_policy = "never"
sandbox_mode = "read-only"
check_for_update_on_startup = false
[model_providers.stub]
name = "stub"
base_url = "http://127.0.0.1:$PORT/v1"
env_key = "STUB_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
[analytics]
enabled = false
[features]
plugins = false
apps = false
EOF

session=$(head -1 "$ROLLOUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["payload"]["id"])')
# Codex wants the canonical name: sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl
stamp=$(head -1 "$ROLLOUT" | python3 -c 'import json,sys; t=json.load(sys.stdin)["timestamp"]; print(t[:19].replace(":", "-"))')
day=${stamp:0:4}/${stamp:5:2}/${stamp:8:2}
mkdir -p "$home/sessions/$day"
set +e
"$tmp/ctxtrim" history -format codex -budget "$BUDGET" -explain "$ROLLOUT" >"$home/sessions/$day/rollout-$stamp-$session.jsonl"
rc=$?
set -e
[ $rc -eq 0 ] || [ $rc -eq 3 ] || { echo "ctxtrim history failed ($rc)"; exit 1; }
sleep 0.5
(cd "$tmp/work" && CODEX_HOME="$home" STUB_KEY=x RUST_LOG=error NO_COLOR=1 \
	timeout 120 "$codex" exec --skip-git-repo-check resume "$session" "What next?" </dev/null >/dev/null)
echo "codex exec resume: exit $? — items Codex sent:"
python3 - "$tmp/requests.jsonl" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    for it in json.loads(line) or []:
        t = it.get("type"); text = ""
        if t == "message": text = " ".join(c.get("text", "") for c in it.get("content", []))
        elif t == "function_call": text = it.get("arguments", "")
        elif t == "function_call_output": text = str(it.get("output", ""))
        print(f"  {t:22} {it.get('role', ''):10} {text[:70]!r}")
EOF
