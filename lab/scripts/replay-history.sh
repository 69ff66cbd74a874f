#!/usr/bin/env bash
# The replays of lab/history-41.md: what `megagit learn history` does to
# routing (cmd/replayhistory says how), on realskills-dev's dev split (with
# blend.learnt_w 0.25, 0.5 and 1.0), its test split (the default weight, and 0.25, the weight dev picks),
# skills-dev, and skills-dev with the paraphrases and prompts that need no
# skill of data/devsets.
#
#   scripts/replay-history.sh --bench DIR [--out DIR]
#
# DIR holds realskills-dev/ and skills-dev/. Each replay writes OUT/NAME.json
# and its tables to OUT/NAME.md (default OUT: a new folder under /tmp);
# all the tables go to stdout too. About two minutes on 2 cores.
set -euo pipefail

bench="" out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --bench) bench=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "replay-history: unknown argument: $1" >&2; exit 2 ;;
  esac
done
[ -d "$bench/realskills-dev" ] && [ -d "$bench/skills-dev" ] || { echo "replay-history: --bench DIR must hold realskills-dev/ and skills-dev/" >&2; exit 2; }
bench=$(cd "$bench" && pwd)
lab=$(cd "$(dirname "$0")/.." && pwd)
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/replay-history.XXXXXX")
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/replay-history-work.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "replay-history: building megagit and replayhistory" >&2
(cd "$lab/.." && go build -o "$work/bin/" ./cmd/megagit)
(cd "$lab" && go build -o "$work/bin/" ./cmd/replayhistory)
cat "$bench/skills-dev/queries.jsonl" "$lab/data/devsets/paraphrase.jsonl" "$lab/data/devsets/null.jsonl" > "$work/skills-dev-plus.jsonl"

replay() {
  local name=$1
  shift
  echo "replay-history: $name" >&2
  (cd "$lab" && "$work/bin/replayhistory" run -megagit "$work/bin/megagit" -work "$work/$name" -json "$out/$name.json" "$@") | tee "$out/$name.md"
}
replay realskills-dev-dev -bench "$bench/realskills-dev" -split dev -learnt-w 0.5,0.25,1.0
replay realskills-dev-test -bench "$bench/realskills-dev" -split test -learnt-w 0.5,0.25
replay skills-dev -bench "$bench/skills-dev"
replay skills-dev-plus -bench "$bench/skills-dev" -queries "$work/skills-dev-plus.jsonl"
echo "replay-history: reports in $out" >&2
