#!/usr/bin/env bash
# What importing the agents' history costs (issue 41, lab/history-41.md):
# `megagit learn history` over generated Claude Code sessions, and the
# prompt hook's per-prompt cost with the prompts it learnt against the same
# registry without them.
#
#   scripts/bench-history.sh --pairs FILE [--skills 1000] [--sessions 10000] [--learnt 5000] [--runs 100] [--rounds 3] [--keep DIR]
#
# Builds megagit, megagit-hook and hello world as releases are built, and
# the lab's benchreg and replayhistory; makes a registry of --skills skills
# from the pairs file (as bench-hook.sh does), then with hyperfine (mean
# and p50):
#
#   1. hello world; `megagit learn history` in a home with no session (the
#      command's fixed cost); the import of --sessions Claude Code sessions
#      (each run from nothing: `learn forget --all` before it); the same
#      again with every session unchanged (skipped by the checkpoint);
#   2. megagit-hook prompt (default config, built-in model), prompts
#      rotating, with no learnt prompt and with the --learnt prompts
#      imported from as many sessions (5 a skill at the defaults), after
#      `megagit index` each time; --rounds times each, alternating, each
#      after hello world, so the machine's drift shows.
#
# Needs go, git and hyperfine. The Markdown tables go to stdout, progress
# to stderr. Run it alone on the machine: it is a timing.
set -euo pipefail

pairs="" skills=1000 sessions=10000 learnt=5000 runs=100 rounds=3 keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --pairs) pairs=${2:?}; shift 2 ;;
    --skills) skills=${2:?}; shift 2 ;;
    --sessions) sessions=${2:?}; shift 2 ;;
    --learnt) learnt=${2:?}; shift 2 ;;
    --runs) runs=${2:?}; shift 2 ;;
    --rounds) rounds=${2:?}; shift 2 ;;
    --keep) keep=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "bench-history: unknown argument: $1" >&2; exit 2 ;;
  esac
done
[ -r "$pairs" ] || { echo "bench-history: --pairs FILE is required and must be readable" >&2; exit 2; }
for tool in go git hyperfine; do
  command -v "$tool" >/dev/null || { echo "bench-history: $tool not found (apt-get install hyperfine)" >&2; exit 2; }
done
pairs=$(cd "$(dirname "$pairs")" && pwd)/$(basename "$pairs")
lab=$(cd "$(dirname "$0")/.." && pwd)
repo=$(dirname "$lab")
if [ -n "$keep" ]; then
  [ ! -e "$keep" ] || { echo "bench-history: $keep exists" >&2; exit 2; }
  mkdir -p "$keep"; tmp=$(cd "$keep" && pwd)
else
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/megagit-history.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
fi
say() { echo "bench-history: $*" >&2; }

# A home of its own, the defaults, a git identity; Go's caches stay the caller's.
export GOMODCACHE=$(go env GOMODCACHE) GOCACHE=$(go env GOCACHE)
for v in $(env | sed -n 's/^\(MEGAGIT_[A-Z0-9_]*\)=.*/\1/p; s/^\(MEGA_EVAL_[A-Z0-9_]*\)=.*/\1/p'); do unset "$v"; done
unset CLAUDE_CONFIG_DIR CODEX_HOME GEMINI_CLI_HOME
export HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config XDG_DATA_HOME=$tmp/home/.local/share XDG_CACHE_HOME=$tmp/home/.cache
export GIT_AUTHOR_NAME=megagit-bench GIT_AUTHOR_EMAIL=bench@megagit.invalid GIT_COMMITTER_NAME=megagit-bench GIT_COMMITTER_EMAIL=bench@megagit.invalid
mkdir -p "$HOME" "$tmp/empty-home"

say "building into $tmp/bin"
bin=$tmp/bin
(cd "$repo" && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$bin/" ./cmd/megagit ./cmd/megagit-hook)
(cd "$lab" && go build -o "$bin/" ./cmd/benchreg ./cmd/replayhistory)
mkdir -p "$tmp/hello"
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello, world") }\n' > "$tmp/hello/main.go"
printf 'module hello\n\ngo 1.22\n' > "$tmp/hello/go.mod"
(cd "$tmp/hello" && GOWORK=off CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$bin/hello" .)
mg=$bin/megagit hookbin=$bin/megagit-hook

reg=$tmp/registry prompts=$tmp/prompts
say "a registry of $skills skills in $reg"
"$mg" init "$reg" >/dev/null
"$bin/benchreg" gen -pairs "$pairs" -n "$skills" -registry "$reg" -prompts "$prompts" >/dev/null
git -C "$reg" add -A
git -C "$reg" commit -q -m "add $skills skills"
"$mg" -C "$reg" embed >&2
"$bin/replayhistory" gen -registry "$reg" -home "$tmp/sessions" -n "$sessions"
"$bin/replayhistory" gen -registry "$reg" -home "$tmp/learnt-home" -n "$learnt"
du -sh "$tmp/sessions" >&2

json=$tmp/json
mkdir -p "$json"
# mean and p50 of a hyperfine export, in ms.
stats() { python3 -c 'import json,sys,statistics as s; r=json.load(open(sys.argv[1]))["results"][0]["times"]; print("%.1f\t%.1f" % (1000*s.mean(r), 1000*s.median(r)))' "$1"; }
rows=$tmp/rows.tsv
: > "$rows"
# time NAME RUNS WARMUP CMD [hyperfine options]: CMD through bash (whose
# start hyperfine subtracts), or with -N none.
time_it() {
  local name=$1 n=$2 w=$3 cmd=$4 shell=--shell=bash
  shift 4
  [[ " $* " == *" -N "* ]] && shell=""
  say "$name"
  hyperfine $shell --style basic -w "$w" -r "$n" --export-json "$json/$name.json" "$@" -n "$name" "$cmd" >&2
  printf '%s\t%s\n' "$name" "$(stats "$json/$name.json")" >> "$rows"
}
hello() { time_it "$1" 50 3 "\"$bin/hello\"" -N; }

# 1. The import.
hello hello-1
time_it "learn history, no session" 10 2 "HOME=\"$tmp/empty-home\" \"$mg\" -C \"$reg\" learn history"
time_it "learn history, $sessions sessions" 5 1 "HOME=\"$tmp/sessions\" \"$mg\" -C \"$reg\" learn history" \
  --prepare "\"$mg\" -C \"$reg\" learn forget --all 2>/dev/null"
"$mg" -C "$reg" learn forget --all 2>/dev/null
HOME=$tmp/sessions "$mg" -C "$reg" learn history --json > "$tmp/import.json"
time_it "learn history, $sessions sessions unchanged" 5 1 "HOME=\"$tmp/sessions\" \"$mg\" -C \"$reg\" learn history"
python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); print("import: %d sessions, %d read, %d uses, %d learnt for %d skills" % (o["sessions"], o["read"], o["uses"], sum(l["new"] for l in o["learnt"]), len(o["learnt"])))' "$tmp/import.json" >&2
"$mg" -C "$reg" learn forget --all 2>/dev/null

# 2. The prompt hook, without and with the learnt prompts.
HOME=$tmp/learnt-home "$mg" -C "$reg" learn history 2>&1 | tail -n 1 >&2
cp "$reg/.megagit/local/learnt.jsonl" "$tmp/learnt.jsonl"
wc -l < "$tmp/learnt.jsonl" | sed 's/^/learnt prompts: /' >&2
next="\"$bin/benchreg\" prepare -prompts \"$prompts\""
hook="\"$hookbin\" prompt --agent claude < \"$prompts/cur.json\""
eval "$next"
"$mg" -C "$reg" hook prompt --agent claude < "$prompts/cur.json" >/dev/null
for round in $(seq 1 "$rounds"); do
  for state in without with; do
    if [ $state = with ]; then cp "$tmp/learnt.jsonl" "$reg/.megagit/local/learnt.jsonl"; else rm -f "$reg/.megagit/local/learnt.jsonl"; fi
    "$mg" -C "$reg" index >&2
    "$hookbin" prompt --agent claude < "$prompts/cur.json" >/dev/null
    hello "hello-$state-$round"
    time_it "hook $state learnt prompts, round $round" "$runs" 3 "$hook" --prepare "$next"
  done
done
commit=$(git -C "$repo" rev-parse --short HEAD)
[ -z "$(git -C "$repo" status --porcelain)" ] || commit="$commit (modified)"
echo "megagit $commit; $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores $(uname -m), $(go version | cut -d' ' -f3-); $(hyperfine --version); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| command | mean ms | p50 ms |"
echo "|---|---:|---:|"
while IFS=$'\t' read -r name mean p50; do echo "| $name | $mean | $p50 |"; done < "$rows"
