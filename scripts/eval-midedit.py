#!/usr/bin/env python3
"""Measures selection for a user in the middle of a fix.

    scripts/eval-midedit.py TASKS.jsonl REPO_DIR WORKTREE BIN[,BIN...] [BUDGETS]

TASKS.jsonl is a task set of ../shared/eval/relevance's make_tasks.py (a
commit's message, its base commit and the source files it changes),
REPO_DIR a clone holding those commits, WORKTREE a scratch linked work tree
of it (created when missing; reset to each base commit: never point it at
a checkout you work in). BUDGETS defaults to 8000,16000,32000.

For every task whose commit makes two hunks or more in its files, the first
half of the hunks (in file order) is applied to the work tree, uncommitted,
as the user's change in progress; each binary then selects for the commit's
message (--format json). Per binary and budget it prints the tasks, how many
show every line the remaining hunks change (and the lines around a pure
insertion, as the kit counts them), the mean share of those lines shown,
and how many show the first added line of each applied hunk (a line of 12
characters or more that occurs once in its file) among those that have one.
One JSON row per task, binary and budget goes to $OUT (default
/tmp/ctxtrim-midedit.json).
"""
import json
import os
import re
import subprocess
import sys
from collections import defaultdict


def run(*args, **kw):
    # errors="replace": a diff may hold bytes of any encoding.
    return subprocess.run(args, capture_output=True, text=True, errors="replace", **kw)


def hunks_of(diff):
    """Splits a -U0 diff into files: header lines, path, hunks."""
    files, cur = [], None
    for line in diff.split("\n"):
        if line.startswith("diff --git"):
            cur = {"hdr": [line], "hunks": [], "path": None, "skip": False}
            files.append(cur)
        elif cur is not None and not cur["hunks"] and not line.startswith("@@"):
            cur["hdr"].append(line)
            if line.startswith("+++ b/"):
                cur["path"] = line[6:]
            if line.startswith(("new file", "deleted file", "Binary files")):
                cur["skip"] = True
        elif line.startswith("@@") and cur is not None:
            m = re.match(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", line)
            a, b = int(m[1]), int(m[2]) if m[2] is not None else 1
            c, d = int(m[3]), int(m[4]) if m[4] is not None else 1
            cur["hunks"].append({"a": a, "b": b, "c": c, "d": d, "lines": [line]})
        elif cur is not None and cur["hunks"] and line[:1] in ("+", "-", "\\"):
            cur["hunks"][-1]["lines"].append(line)
    return [f for f in files if f["path"] and not f["skip"] and f["hunks"]]


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    tasks, repo, wt, bins = sys.argv[1:5]
    budgets = (sys.argv[5] if len(sys.argv) > 5 else "8000,16000,32000").split(",")
    bins = bins.split(",")
    if not os.path.isdir(wt):
        run("git", "-C", repo, "worktree", "add", "-q", "--detach", wt, "HEAD")
    rows = []
    for line in open(tasks):
        t = json.loads(line)
        diff = run("git", "-C", repo, "diff", "-U0", "--no-color", "--no-renames",
                   t["base_commit"], t["commit"], "--", *t["gold_files"]).stdout
        files = hunks_of(diff)
        every = [(f, h) for f in files for h in f["hunks"]]
        if len(every) < 2:
            continue
        applied = {id(h) for _, h in every[: (len(every) + 1) // 2]}
        patch = ""
        for f in files:
            hs = [h for h in f["hunks"] if id(h) in applied]
            if hs:
                patch += "\n".join(f["hdr"]) + "\n" + "".join("\n".join(h["lines"]) + "\n" for h in hs)
        run("git", "-C", wt, "checkout", "-q", "--detach", "-f", t["base_commit"])
        run("git", "-C", wt, "clean", "-ffdxq")
        p = run("git", "-C", wt, "apply", "--unidiff-zero", "-", input=patch)
        if p.returncode != 0:
            print(f"{t['id']}: the first hunks do not apply: {p.stderr.strip()[:200]}", file=sys.stderr)
            continue
        need, edits = defaultdict(set), []
        for f in files:
            off = 0  # lines the applied hunks above added, less those they deleted
            for h in f["hunks"]:
                if id(h) in applied:
                    off += h["d"] - h["b"]
                    added = [x[1:].strip() for x in h["lines"][1:] if x.startswith("+") and len(x[1:].strip()) >= 12]
                    if added:
                        edits.append((f["path"], added[0]))
                    continue
                if h["b"] > 0:
                    need[f["path"]].update(range(h["a"] + off, h["a"] + h["b"] + off))
                else:  # inserted after line a: the lines around it
                    need[f["path"]].update(x for x in (h["a"] + off, h["a"] + off + 1) if x >= 1)
        text = {}
        for f in files:
            fp = os.path.join(wt, f["path"])
            if os.path.exists(fp):
                text[f["path"]] = open(fp, errors="replace").read()
        edits = [(pth, a) for pth, a in edits if text.get(pth, "").count(a) == 1]
        for b in bins:
            for bud in budgets:
                q = run(b, "--repo", wt, "--budget", bud, "--format", "json", input=t["task"])
                try:
                    doc = json.loads(q.stdout)
                except ValueError:
                    print(f"{t['id']}: {b} -budget {bud}: {q.stderr.strip()[:200]}", file=sys.stderr)
                    continue
                shown, content = defaultdict(set), ""
                for fl in doc.get("files") or []:
                    for rg in fl.get("ranges") or []:
                        shown[fl["path"]].update(range(rg["start"], rg["end"] + 1))
                    content += fl.get("content", "")
                n = sum(len(ls) for ls in need.values())
                hit = sum(len(ls & shown[pth]) for pth, ls in need.items())
                rows.append({
                    "id": t["id"], "bin": b, "budget": bud,
                    "rest_all": all(ls <= shown[pth] for pth, ls in need.items()),
                    "rest_rec": hit / n if n else 1.0,
                    "edits_shown": all(a in content for _, a in edits) if edits else None,
                })
    run("git", "-C", wt, "checkout", "-q", "-f", ".")
    json.dump(rows, open(os.environ.get("OUT", "/tmp/ctxtrim-midedit.json"), "w"))
    agg = defaultdict(lambda: [0, 0, 0.0, 0, 0])
    for r in rows:
        a = agg[(r["bin"], r["budget"])]
        a[0] += 1
        a[1] += r["rest_all"]
        a[2] += r["rest_rec"]
        if r["edits_shown"] is not None:
            a[3] += 1
            a[4] += r["edits_shown"]
    print("binary\tbudget\ttasks\trest all\trest rec\tedits shown")
    for (b, bud), a in sorted(agg.items()):
        print(f"{b}\t{bud}\t{a[0]}\t{a[1]}\t{a[2] / a[0]:.3f}\t{a[4]} of {a[3]}")


if __name__ == "__main__":
    main()
