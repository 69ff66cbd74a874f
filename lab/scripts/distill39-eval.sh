#!/usr/bin/env bash
# distill39-eval.sh: one line per model for issue 39's distillation
# (lab/distill-39.md): realskills-dev (one split) per kind, skills-dev and
# MetaTool, coverage and R@1 / R@5.
#
#   lab/scripts/distill39-eval.sh [-s dev|test] [-g GATE|off|default] [-w W] MEGAGIT MODEL...
#
# MODEL is a built-in model id (megagit-static-v3) or a static model folder,
# "none" for lexical routing. GATE: "default" (the model's shipped gate; none
# for a folder), "off" (the fixed floors) or a gate file; "MODEL=GATE" in the
# list gives one model its own gate. -w sets the fusion weight (0.999: the
# model's cosine alone, ranking only).
set -euo pipefail
split=dev gate=default w=
while getopts s:g:w: o; do
  case $o in s) split=$OPTARG ;; g) gate=$OPTARG ;; w) w=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
mg=$1; shift
B=${BENCH:-/work/shared/bench}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
jq -c --arg s "$split" 'select(.split==$s)' "$B/realskills-dev/queries.jsonl" > "$tmp/rs.jsonl"
printf 'model\tgate\trs-%s para cov/R1/R5\tin cov/R1\tsmalltalk/trap/uncov\tall cov/R1/R5 tok\tskills-dev cov/R1\tmetatool cov/R1/R5\n' "$split"
for spec in "$@"; do
  m=${spec%%=*} g=$gate
  [ "$spec" != "$m" ] && g=${spec#*=}
  env=()
  case $m in
    none) env+=("MEGAGIT_MODEL_ID=none") ;;
    megagit-static-*) env+=("MEGAGIT_MODEL_ID=$m") ;;
    *) env+=("MEGAGIT_MODEL_DIR=$m") ;;
  esac
  case $g in
    default) ;;
    off) env+=("MEGAGIT_DYNAMIC_K_GATE=off") ;;
    *) env+=("MEGAGIT_DYNAMIC_K_GATE=$g") ;;
  esac
  [ -n "$w" ] && env+=("MEGAGIT_MODEL_FUSION_W=$w")
  env "${env[@]}" nice -n 10 "$mg" eval "$B/realskills-dev" --queries "$tmp/rs.jsonl" --json 2>/dev/null > "$tmp/rs.json"
  env "${env[@]}" nice -n 10 "$mg" eval "$B/skills-dev" --json 2>/dev/null > "$tmp/sd.json"
  env "${env[@]}" nice -n 10 "$mg" eval "$B/metatool" --json 2>/dev/null > "$tmp/mt.json"
  python3 - "$tmp" "$(basename "$m")" "$(basename "$g")" <<'PY'
import json, sys
t, name, gate = sys.argv[1:]
rs, sd, mt = (json.load(open(f"{t}/{x}.json")) for x in ("rs", "sd", "mt"))
k = rs["kinds"]
p, i = k["paraphrase"], k["in"]
print("\t".join([name, gate,
    "%.3f %.3f %.3f" % (p["coverage"], p["recall_at_1"], p["recall_at_5"]),
    "%.3f %.3f" % (i["coverage"], i["recall_at_1"]),
    "%.3f %.3f %.3f" % (k["null-smalltalk"]["coverage"], k["null-trap"]["coverage"], k["null-uncovered"]["coverage"]),
    "%.3f %.3f %.3f %3.0f" % (rs["coverage"], rs["recall_at_1"], rs["recall_at_5"], rs["mean_tokens"]),
    "%.3f %.3f" % (sd["coverage"], sd["recall_at_1"]),
    "%.3f %.3f %.3f" % (mt["coverage"], mt["recall_at_1"], mt["recall_at_5"])]))
PY
done
