#!/usr/bin/env bash
# Measure a route's abstention gate on prompts it was not fitted on: two-fold
# cross-validation over the folds of `devsets gen` (NOTEBOOK.md, "A gate
# measured on prompts it was not fitted on").
#
#   scripts/gate-cv.sh --devsets DIR [--megagit BIN] [--model ID] [--small N] [--null-share S] [--measure queries]
#
#   --devsets DIR  the catalogs of `go run ./cmd/devsets gen` (DIR/skills-N
#                  with fold-dev.jsonl and fold-test.jsonl)
#   --megagit BIN  the megagit binary (default: built from this checkout)
#   --model ID     MEGAGIT_MODEL_ID (default megagit-static-v3; none: lexical)
#   --small N      the smallest catalog the gate below is fitted on, as the
#                  shipped gates are (default 10)
#   --null-share S the fits' --null-share (default: eval's)
#   --measure queries  measure on the benchmark's own queries of the other
#                  fold only (queries-{dev,test}.jsonl), not the whole fold
#
# For each fold, the two gates are fitted on that fold alone the way the
# shipped ones are (the gate for 156 skills and more on 156 and up, the one
# below it on every size from --small up), then every size is routed with
# them on the other fold. One row per size: the coverage of the shipped gates
# (fitted on both folds' prompts) and of the cross-fitted ones, over both
# folds' prompts together. Needs jq.
set -euo pipefail

devsets="" megagit="" model=megagit-static-v3 small=10 share=() measure=fold
while [ $# -gt 0 ]; do
  case "$1" in
    --devsets) devsets="$2"; shift 2 ;;
    --megagit) megagit="$2"; shift 2 ;;
    --model) model="$2"; shift 2 ;;
    --small) small="$2"; shift 2 ;;
    --null-share) share=(--null-share "$2"); shift 2 ;;
    --measure) measure="$2"; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gate-cv.sh: unknown argument $1 (--help)" >&2; exit 2 ;;
  esac
done
case "$measure" in
  fold|queries) ;;
  *) echo "gate-cv.sh: --measure fold or queries" >&2; exit 2 ;;
esac
if [ -z "$devsets" ]; then
  echo "gate-cv.sh: --devsets DIR is required (--help)" >&2
  exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$megagit" ]; then
  megagit=$tmp/megagit
  (cd "$(dirname "$0")/../.." && go build -o "$megagit" ./cmd/megagit)
fi

sizes=() all=() large=()
for d in "$devsets"/skills-*; do
  sizes+=("${d##*/skills-}")
done
mapfile -t sizes < <(printf '%s\n' "${sizes[@]}" | sort -n)
for n in "${sizes[@]}"; do
  [ -f "$devsets/skills-$n/fold-dev.jsonl" ] || { echo "gate-cv.sh: $devsets/skills-$n has no folds: run devsets gen again" >&2; exit 2; }
  [ "$n" -ge "$small" ] && all+=("$devsets/skills-$n")
  [ "$n" -ge 156 ] && large+=("$devsets/skills-$n")
done

export MEGAGIT_MODEL_ID=$model
for fold in dev test; do
  if [ "$small" -ge 156 ]; then
    "$megagit" eval "${share[@]}" --fit "$tmp/$fold.json" --queries "fold-$fold.jsonl" "${large[@]}" >/dev/null 2>&1
  else
    "$megagit" eval "${share[@]}" --fit "$tmp/$fold-small.json" --queries "fold-$fold.jsonl" "${all[@]}" >/dev/null 2>&1
    "$megagit" eval "${share[@]}" --fit "$tmp/$fold.json" --below "$tmp/$fold-small.json" --queries "fold-$fold.jsonl" "${large[@]}" >/dev/null 2>&1
  fi
done

# covered FILE GATE: the sum of coverage over FILE's prompts, and their count.
covered() {
  MEGAGIT_DYNAMIC_K_GATE=$2 "$megagit" eval "$(dirname "$1")" --queries "$1" --json 2>/dev/null |
    jq -r '"\(.coverage * .counts.total) \(.counts.total)"'
}

echo "| skills | shipped gates (fitted on both folds) | fitted on the other fold |"
echo "|---|---|---|"
for n in "${sizes[@]}"; do
  d=$devsets/skills-$n
  read -r a1 n1 < <(covered "$d/$measure-dev.jsonl" auto)
  read -r a2 n2 < <(covered "$d/$measure-test.jsonl" auto)
  read -r b1 _ < <(covered "$d/$measure-dev.jsonl" "$tmp/test.json")
  read -r b2 _ < <(covered "$d/$measure-test.jsonl" "$tmp/dev.json")
  awk -v n="$n" -v a1="$a1" -v a2="$a2" -v b1="$b1" -v b2="$b2" -v t="$((n1 + n2))" \
    'BEGIN { printf "| %s | %.3f | %.3f |\n", n, (a1 + a2) / t, (b1 + b2) / t }'
done
