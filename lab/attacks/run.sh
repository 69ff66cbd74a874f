#!/usr/bin/env bash
# run.sh: build megagit from this repository, run every attack group (or
# the groups named: run.sh g01 g07), print each HELD / BROKEN line and the
# totals. Exit 0 when nothing is broken, 1 otherwise.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export ATK_BIN
ATK_BIN=$(mktemp -d /tmp/megagit-attacks-bin-XXXXXX)
trap 'rm -rf "$ATK_BIN"' EXIT
start=$(date +%s)
echo "# building megagit and megagit-hook from $root ($(git -C "$root" rev-parse --short HEAD 2>/dev/null))"
(cd "$root" && CGO_ENABLED=1 nice go build -o "$ATK_BIN/" ./cmd/...) || { echo "BROKEN build: go build ./cmd/... failed"; exit 1; }
groups=("$@")
[ ${#groups[@]} = 0 ] && groups=($(cd "$here" && ls g[0-9][0-9]-*.sh | sed 's/\.sh$//'))
out=$(mktemp)
for g in "${groups[@]}"; do
	f=$(ls "$here"/"$g"*.sh 2>/dev/null | head -1)
	[ -n "$f" ] || { echo "BROKEN $g: no such group"; continue; }
	gs=$(date +%s)
	echo "# $(basename "$f")"
	nice -n 5 bash "$f" 2>/dev/null | tee -a "$out" | grep -E '^(HELD|BROKEN) '
	echo "# $(basename "$f") took $(($(date +%s) - gs))s"
done
held=$(grep -c '^HELD ' "$out")
broken=$(grep -c '^BROKEN ' "$out")
echo
echo "# totals: $((held + broken)) attacks run, $held held, $broken broken ($(($(date +%s) - start))s)"
grep '^BROKEN ' "$out" | sed 's/^/#   /'
rm -f "$out"
[ "$broken" = 0 ]
