#!/usr/bin/env bash
# distill39-gate.sh: a static model folder's abstention gate, fitted as the
# shipped gates are (lab/README.md, "How the shipped gates were fitted"): a
# gate for 10 to 155 skills on every devsets catalog, nested as `below` in
# one fitted on the catalogs of 156 skills and more, on all-dev.jsonl.
#
#   lab/scripts/distill39-gate.sh DEVSETS MEGAGIT MODEL OUT.json
#
# MODEL is a static model folder or a built-in model id.
set -euo pipefail
D=$1 mg=$2 model=$3 out=$4
ALL="$D/skills-10 $D/skills-20 $D/skills-35 $D/skills-50 $D/skills-100 $D/skills-156 $D/skills-500 $D/skills-2000 $D/skills-10000"
LARGE="$D/skills-156 $D/skills-500 $D/skills-2000 $D/skills-10000"
case $model in
  megagit-static-*) env=("MEGAGIT_MODEL_ID=$model") ;;
  *) env=("MEGAGIT_MODEL_DIR=$model") ;;
esac
small=$(mktemp --suffix=.json); trap 'rm -f "$small"' EXIT
# shellcheck disable=SC2086
env "${env[@]}" nice -n 10 "$mg" eval --fit "$small" --queries all-dev.jsonl $ALL >/dev/null
# shellcheck disable=SC2086
env "${env[@]}" nice -n 10 "$mg" eval --fit "$out" --below "$small" --queries all-dev.jsonl $LARGE >/dev/null
echo "wrote $out"
