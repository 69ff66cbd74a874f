#!/usr/bin/env bash
# What one verdict and one sync cost, each in a process of its own, next to
# plain git doing the same on a clone of the same registry and a Go hello
# world, timed in one session (BENCHMARKS.md, "What do a verdict and a sync
# cost?").
#
#   scripts/bench-sync.sh --pairs FILE [--skills N] [--runs N] [--warmup N]
#
#   --pairs FILE  gzipped JSONL {"a": name, "b": description} pairs, one skill
#                 per pair (as bench-hook.sh reads them; required)
#   --skills N    registry size (default 1000)
#   --runs N      timed runs per command (default 30)
#   --warmup N    warm-up runs per command (default 3)
#
# Builds megagit and hello world as releases are built (CGO_ENABLED=0,
# -trimpath, -ldflags '-s -w'), a registry of N skills with a bare file://
# remote, and a plain git clone of that remote. Then times (hyperfine, p50):
#
#   hello world
#   git commit -a of a one-line change (plain git, the same tree)
#   megagit verdict SKILL NEUTRAL (a ledger line, the SKILL.md, one commit)
#   git fetch, then git push of one new commit to the bare remote (plain git)
#   megagit sync after one verdict (fetch, nothing to merge, push)
#
# with each command's ratio to hello world and each megagit row's ratio to
# the plain git row above it.
#
# The Markdown table goes to stdout, progress to stderr. Needs go, git,
# hyperfine and jq.
set -euo pipefail

pairs="" skills=1000 runs=30 warmup=3
while [ $# -gt 0 ]; do
  case "$1" in
    --pairs) pairs=${2:?--pairs needs a file}; shift 2 ;;
    --skills) skills=${2:?--skills needs a number}; shift 2 ;;
    --runs) runs=${2:?--runs needs a number}; shift 2 ;;
    --warmup) warmup=${2:?--warmup needs a number}; shift 2 ;;
    -h|--help) sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-sync: unknown argument $1 (--help)" >&2; exit 2 ;;
  esac
done
[ -r "$pairs" ] || { echo "bench-sync: --pairs FILE is required and must be readable" >&2; exit 2; }
[[ $skills =~ ^[1-9][0-9]*$ ]] || { echo "bench-sync: --skills must be a positive number" >&2; exit 2; }
[[ $runs =~ ^[1-9][0-9]*$ && $runs -ge 2 ]] || { echo "bench-sync: --runs must be a number >= 2" >&2; exit 2; }
[[ $warmup =~ ^[0-9]+$ ]] || { echo "bench-sync: --warmup must be a number" >&2; exit 2; }
for tool in go git hyperfine jq; do
  command -v "$tool" >/dev/null 2>&1 || { echo "bench-sync: $tool not found on PATH" >&2; exit 2; }
done

pairs=$(cd "$(dirname "$pairs")" && pwd)/$(basename "$pairs")
lab=$(cd "$(dirname "$0")/.." && pwd)
repo=$(dirname "$lab")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/megagit-bench-sync.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
say() { echo "bench-sync: $*" >&2; }

export GIT_AUTHOR_NAME=megagit-bench GIT_AUTHOR_EMAIL=bench@megagit.invalid
export GIT_COMMITTER_NAME=megagit-bench GIT_COMMITTER_EMAIL=bench@megagit.invalid
for v in $(env | sed -n 's/^\(MEGAGIT_[A-Z0-9_]*\)=.*/\1/p'); do unset "$v"; done

say "building megagit, the helper and hello world into $tmp/bin"
bin=$tmp/bin
release() { CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' "$@"; }
(cd "$repo" && release -o "$bin/megagit" ./cmd/megagit)
(cd "$lab" && go build -o "$bin/benchreg" ./cmd/benchreg)
mkdir -p "$tmp/hello"
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello, world") }\n' > "$tmp/hello/main.go"
printf 'module hello\n\ngo 1.22\n' > "$tmp/hello/go.mod"
(cd "$tmp/hello" && GOWORK=off release -o "$bin/hello" .)
mg=$bin/megagit

say "a registry of $skills skills, its bare remote and a plain git clone"
reg=$tmp/registry remote=$tmp/remote.git plain=$tmp/plain
"$mg" init "$reg" >/dev/null
read -r vskill _ < <("$bin/benchreg" gen -pairs "$pairs" -n "$skills" -registry "$reg" -prompts "$tmp/prompts")
git -C "$reg" add -A
git -C "$reg" commit -q -m "add $skills skills"
git init -q --bare "$remote"
"$mg" -C "$reg" remote add origin "file://$remote" >/dev/null
"$mg" -C "$reg" sync >/dev/null
git clone -q "file://$remote" "$plain"
note=$plain/NOTES
echo line > "$note"
git -C "$plain" add NOTES
git -C "$plain" commit -q -m notes

rows=$tmp/rows.tsv
: > "$rows"
# time_cmd LABEL PREPARE CMD: one hyperfine run through bash (whose start it
# subtracts); its p50 in ms goes to the rows, with the p50 of the plain git
# row before it for a megagit row. Sets last to the p50.
last=""
time_cmd() {
  local label=$1 prep=$2 cmd=$3 json=$tmp/row$(wc -l < "$rows").json base=""
  say "$label"
  hyperfine --shell=bash --style basic -w "$warmup" -r "$runs" --prepare "$prep" --export-json "$json" -n "$label" "$cmd" >&2
  [[ $label == megagit* ]] && base=$last
  last=$(jq '.results[0].median * 1000' "$json")
  printf '%s\t%s\t%s\n' "$label" "$last" "$base" >> "$rows"
}
hello_json=$tmp/hello.json
hyperfine -N --style basic -w "$warmup" -r "$((runs < 50 ? 50 : runs))" --export-json "$hello_json" -n "hello world" "$bin/hello" >&2
hello=$(jq '.results[0].median * 1000' "$hello_json")
time_cmd "git commit -a, one changed line (plain git)" "echo line >> '$note'" "git -C '$plain' commit -qam verdict"
time_cmd "megagit verdict SKILL NEUTRAL" ":" "'$mg' -C '$reg' verdict '$vskill' NEUTRAL --reason bench"
git -C "$plain" push -q origin HEAD:refs/heads/plain
time_cmd "git fetch + git push, one new commit (plain git)" "echo line >> '$note' && git -C '$plain' commit -qam verdict" "git -C '$plain' fetch -q origin && git -C '$plain' push -q origin HEAD:refs/heads/plain"
time_cmd "megagit sync after one verdict" "'$mg' -C '$reg' verdict '$vskill' NEUTRAL --reason bench" "'$mg' -C '$reg' sync"
[ -z "$(git -C "$reg" status --porcelain)" ] || say "warning: $reg is not clean after the runs"

commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -z "$(git -C "$repo" status --porcelain 2>/dev/null)" ] || commit="$commit (modified)"
echo "megagit $commit; $skills skills; $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores $(uname -m), $(go version | cut -d' ' -f3-); $(hyperfine --version); p50 of $runs runs after $warmup warm-ups; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| what | p50 | × hello world | × plain git |"
echo "|---|---:|---:|---:|"
printf '| hello world | %.1f ms | 1.0× | |\n' "$hello"
while IFS=$'\t' read -r label ms base; do
  awk -v l="$label" -v m="$ms" -v h="$hello" -v b="$base" \
    'BEGIN { printf "| %s | %.1f ms | %.1f× | %s |\n", l, m, m / h, b == "" ? "" : sprintf("%.1f×", m / b) }'
done < "$rows"
