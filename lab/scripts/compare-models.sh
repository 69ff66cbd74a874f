#!/usr/bin/env bash
# Compare built-in models (or any model.id values) on the development sets:
# one Markdown table, the rows of NOTEBOOK.md's "megagit-static-v2 against
# v1". Every setting default but the model (and --gate).
#
#   scripts/compare-models.sh --devsets DIR --metatool DIR [--megagit BIN] [--gate auto|off] [MODEL...]
#
#   --devsets DIR   the catalogs of `go run ./cmd/devsets gen`
#                   (DIR/skills-N, every N it holds, smallest first)
#   --metatool DIR  the MetaTool benchmark folder (skills/, queries.jsonl)
#   --megagit BIN   the megagit binary (default: built from this checkout)
#   --gate G        MEGAGIT_DYNAMIC_K_GATE: auto (the shipped gates, default)
#                   or off (the fixed floors)
#   MODEL...        model ids, each set as MEGAGIT_MODEL_ID
#                   (default: megagit-static-v1 megagit-static-v2)
#
# Each cell is `megagit eval DIR --queries FILE --json`; needs jq.
set -euo pipefail

devsets="" metatool="" megagit="" gate=auto
models=()
while [ $# -gt 0 ]; do
  case "$1" in
    --devsets) devsets="$2"; shift 2 ;;
    --metatool) metatool="$2"; shift 2 ;;
    --megagit) megagit="$2"; shift 2 ;;
    --gate) gate="$2"; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "compare-models.sh: unknown flag $1" >&2; exit 2 ;;
    *) models+=("$1"); shift ;;
  esac
done
if [ -z "$devsets" ] || [ -z "$metatool" ]; then
  echo "compare-models.sh: --devsets DIR and --metatool DIR are required (--help)" >&2
  exit 2
fi
[ ${#models[@]} -gt 0 ] || models=(megagit-static-v1 megagit-static-v2)
if [ -z "$megagit" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  megagit="$tmp/megagit"
  (cd "$(dirname "$0")/../.." && go build -o "$megagit" ./cmd/megagit)
fi

# row MODEL LABEL SKILLS DIR QUERIES: one table row from eval's JSON.
row() {
  local model=$1 label=$2 skills=$3 dir=$4 queries=$5
  MEGAGIT_MODEL_ID=$model MEGAGIT_DYNAMIC_K_GATE=$gate "$megagit" eval "$dir" --queries "$queries" --json 2>/dev/null |
    jq -r --arg m "$model" --arg l "$label" --arg n "$skills" '
      def f3: (. * 1000 | round / 1000 | tostring) as $s
        | if ($s | test("\\.")) then ($s + "000" | .[0:(index(".") + 4)]) else $s + ".000" end;
      def f2: (. * 100 | round / 100 | tostring) as $s
        | if ($s | test("\\.")) then ($s + "00" | .[0:(index(".") + 3)]) else $s + ".00" end;
      def opt(x): if .counts.in_dist > 0 then (x | f3) else "-" end;
      def optn(x): if .counts.null > 0 then (x | f3) else "-" end;
      "| \($m) | \($l) | \($n) | \(.coverage | f3) | \(opt(.in_dist_coverage)) | \(optn(.null_coverage)) | \(opt(.recall_at_1)) | \(opt(.recall_at_5)) | \(.mean_k | f2) | \(.mean_tokens | round) |"'
}

echo "| model | query set | skills | coverage | in-dist | null | R@1 | R@5 | mean K | mean tokens |"
echo "|---|---|---|---|---|---|---|---|---|---|"
sizes=$(for d in "$devsets"/skills-*/; do d=${d%/}; echo "${d##*/skills-}"; done | sort -n)
for q in queries null-test paraphrase-test; do
  for n in $sizes; do
    for m in "${models[@]}"; do
      row "$m" "$q" "$n" "$devsets/skills-$n" "$devsets/skills-$n/$q.jsonl"
    done
  done
done
n=$(find "$metatool/skills" -name SKILL.md | wc -l)
for m in "${models[@]}"; do
  row "$m" metatool "$n" "$metatool" "$metatool/queries.jsonl"
done
