#!/usr/bin/env bash
# distill-eval.sh: one row per benchmark set and prompt kind for one model
# (lab/distill.md). MODEL is "v3" (the built-in megagit-static-v3) or a static
# model folder; GATE is "default" (what that model routes with: v3's shipped
# gate, none for a folder), "off", or a gate file.
#
#   lab/scripts/distill-eval.sh MEGAGIT MODEL GATE [SPLIT]    # SPLIT dev (default) or test
set -euo pipefail
mg=$1 model=$2 gate=$3 split=${4:-dev}
B=${BENCH:-/work/shared/bench}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
jq -c --arg s "$split" 'select(.split==$s)' "$B/realskills-dev/queries.jsonl" > "$tmp/rs.jsonl"
env=()
[ "$model" != v3 ] && env+=("MEGAGIT_MODEL_DIR=$model")
[ "$gate" != default ] && env+=("MEGAGIT_DYNAMIC_K_GATE=$gate")
row() { # name eval-args...
  local name=$1; shift
  env "${env[@]}" nice -n 10 "$mg" eval "$@" --json 2>>"${ERRLOG:-/dev/null}" | python3 -c '
import json,sys
d=json.load(sys.stdin); name=sys.argv[1]
print("%s\tall\t-\tcov %.3f\tR@1 %.3f\tR@5 %.3f\ttokens %.0f" % (name, d["coverage"], d["recall_at_1"], d["recall_at_5"], d["mean_tokens"]))
for k, v in sorted(d["kinds"].items()):
    extra = "" if v["null"] else "\tR@1 %.3f\tR@5 %.3f" % (v["recall_at_1"], v["recall_at_5"])
    print("%s\t%s\t%d\tcov %.3f%s" % (name, k, v["n"], v["coverage"], extra))
' "$name"
}
row "realskills-$split" "$B/realskills-dev" --queries "$tmp/rs.jsonl"
if [ "$split" = dev ]; then
  row skills-dev "$B/skills-dev"
  row metatool "$B/metatool"
fi
