#!/usr/bin/env bash
# bench-served-model.sh: what a prompt costs with a model answered by a warm
# `megagit serve` (lab/models-39.md, "Cost").
#
#   lab/scripts/bench-served-model.sh --megagit BIN --skills DIR [--runs 30] [MODEL ...]
#
# MODEL is `v3` (the built-in model), `none` (lexical) or an ONNX folder,
# optionally with its profile as FOLDER=PROFILE. For each one: a registry
# in a temp folder holding a copy of DIR's skills (DIR/<id>/SKILL.md), the
# model set in its .megagit/config.yaml, `megagit embed` (timed: the whole
# catalog embedded once), `megagit serve` started and warmed, then hyperfine
# times a Go hello world and `megagit route PROMPT` answered by the server,
# one after the other in the same run, with the server's RSS read from
# /proc after the runs. Needs hyperfine (apt-get install hyperfine) and go.
set -euo pipefail

mg="" skills="" runs=30
while [ $# -gt 0 ]; do
  case $1 in
    --megagit) mg=$2; shift 2 ;;
    --skills) skills=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
[ -n "$mg" ] && [ -n "$skills" ] || { echo "bench-served-model: --megagit and --skills are required" >&2; exit 2; }
mg=$(cd "$(dirname "$mg")" && pwd)/$(basename "$mg")
skills=$(cd "$skills" && pwd)
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.invalid GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.invalid
tmp=$(mktemp -d)
srv=""
cleanup() { [ -n "$srv" ] && kill "$srv" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

mkdir -p "$tmp/hello"
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello, world") }\n' > "$tmp/hello/main.go"
printf 'module hello\n\ngo 1.22\n' > "$tmp/hello/go.mod"
(cd "$tmp/hello" && GOWORK=off go build -o "$tmp/hello/hello" .)
hello=$tmp/hello/hello
prompt="my pull request description should link the GitHub issue and the Linear ticket"

echo "| model | embed the catalog | hello world | megagit route, served | ratio | server RSS |"
echo "|---|---|---|---|---|---|"
for m in "${@:-v3}"; do
  reg=$tmp/reg
  rm -rf "$reg" && mkdir -p "$reg/skills" "$reg/.megagit"
  cp -r "$skills"/. "$reg/skills/"
  (cd "$reg" && git init -q && git add -A && git commit -qm skills)
  case $m in
    v3) printf 'model:\n  id: megagit-static-v3\n' > "$reg/.megagit/config.yaml" ;;
    none) printf 'model:\n  id: none\n' > "$reg/.megagit/config.yaml" ;;
    *=*) printf 'model:\n  dir: %s\n  id: %s\n' "${m%%=*}" "${m#*=}" > "$reg/.megagit/config.yaml" ;;
    *) printf 'model:\n  dir: %s\n' "$m" > "$reg/.megagit/config.yaml" ;;
  esac
  t0=$(date +%s.%N)
  if [ "$m" != none ]; then "$mg" -C "$reg" embed --all >"$tmp/embed.log" 2>&1 || { cat "$tmp/embed.log" >&2; exit 1; }; fi
  t1=$(date +%s.%N)
  "$mg" -C "$reg" serve --idle 10m >"$tmp/serve.log" 2>&1 &
  srv=$!
  for _ in $(seq 50); do "$mg" -C "$reg" route "$prompt" >/dev/null 2>&1 && break; sleep 0.2; done
  hyperfine -N -w 3 -r "$runs" --export-json "$tmp/h.json" "$hello" "$mg -C $reg route '$prompt'" >/dev/null 2>&1
  rss=$(awk '/VmHWM/ {print $2}' /proc/$srv/status)
  kill "$srv"; wait "$srv" 2>/dev/null || true; srv=""
  python3 - "$tmp/h.json" "$m" "$t0" "$t1" "$rss" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
h, m = r[0]["median"] * 1000, r[1]["median"] * 1000
print("| %s | %.1f s | %.1f ms | %.1f ms | %.1f× | %.0f MB |" % (
    sys.argv[2].split("/")[-1], float(sys.argv[4]) - float(sys.argv[3]), h, m, m / h, int(sys.argv[5]) / 1024))
EOF
done
