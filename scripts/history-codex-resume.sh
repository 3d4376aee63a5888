#!/usr/bin/env bash
# history-codex-resume.sh — check that "ctxtrim history" keeps a Codex rollout
# resumable, and show the history Codex rebuilds from it.
#
# A thin wrapper around the end-to-end test TestCodexResumePruned (e2e/): it
# installs @openai/codex (the version the test pins) with npm, prunes the
# rollout with ctxtrim, resumes it with "codex exec resume" against the stub
# model inside a loopback-only network namespace, and checks the request
# Codex sends (within the window, every function_call with its output, the
# omitted-turns notice and the placeholders present). -v lists the items
# Codex sent: the pruned history, then what Codex adds, then the new prompt.
#
#   scripts/history-codex-resume.sh                  # the test's cases
#   scripts/history-codex-resume.sh ROLLOUT BUDGET   # one rollout, -budget BUDGET
#
# Needs go, npm and unshare (util-linux) with ip (iproute2).
set -euo pipefail
if [ $# -gt 0 ]; then
	CTXTRIM_E2E_ROLLOUT=$(realpath "$1")
	CTXTRIM_E2E_BUDGET=${2:?usage: $0 [ROLLOUT BUDGET]}
	export CTXTRIM_E2E_ROLLOUT CTXTRIM_E2E_BUDGET
fi
cd "$(dirname "$0")/.."
exec go test ./e2e -run '^TestCodexResumePruned$' -count=1 -v
