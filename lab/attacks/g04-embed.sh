#!/usr/bin/env bash
# g04-embed: the committed embedding cache keeps every row (issue 38
# finding 4): a skill with several contexts or reasons of one polarity,
# embed then cache verify, embed twice, a sync merge of two sides' caches,
# a tampered cache seen by verify and doctor and repaired by embed.
. "$(dirname "$0")/lib.sh"

fresh_home
mkshared team >/dev/null
mg clone "file://$T/team.git" b >/dev/null 2>&1
cd team-a
for i in 1 2 3; do
	mg verdict docker-slim HELPFUL --reason "helpful reason $i about layers" --context "docker image too large case $i" >/dev/null 2>&1
done
for i in 1 2; do
	mg verdict docker-slim HARMFUL --reason "harmful reason $i about cache" --context "docker build slow case $i" >/dev/null 2>&1
done
mg verdict flaky-tests HELPFUL --reason "same words" --context "flaky test in ci" >/dev/null 2>&1
mg verdict flaky-tests HELPFUL --reason "same words" --context "flaky test in ci" >/dev/null 2>&1
out=$(mg embed 2>&1)
rc=$?
why=""
[ "$rc" = 0 ] || why="embed exit $rc: $(echo "$out" | tail -1)"
mg cache verify >/dev/null 2>&1
vrc=$?
[ "$vrc" = 0 ] || why="$why; cache verify exit $vrc right after embed"
out2=$(mg embed --json 2>&1)
echo "$out2" | grep -q '"commit": ""' || why="$why; a second embed committed again"
mg cache verify >/dev/null 2>&1 || why="$why; cache verify fails after a second embed"
mg doctor --offline 2>/dev/null | grep -q $'^ok\tcache' || why="$why; doctor cache not ok: $(mg doctor --offline 2>/dev/null | grep $'\tcache' | head -1)"
verdict embed-many-contexts-verify "${why#; }"
cd ..

# Rows of a multi-context skill really are all there: count rows per skill
# in index.json against the contexts and reasons in mega_meta.
idx=$(ls team-a/.megagit/embeddings/*/index.json 2>/dev/null | head -1)
if [ -n "$idx" ]; then
	n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); rows=d.get("rows", d if isinstance(d, list) else []); print(sum(1 for r in rows if isinstance(r, dict) and r.get("skill") == "docker-slim"))' "$idx" 2>/dev/null)
	verdict embed-rows-per-skill "$([ "${n:-0}" -ge 6 ] || echo "docker-slim has ${n:-?} rows in index.json for 3 helpful + 2 harmful contexts and reasons plus name/description")"
else
	broken embed-rows-per-skill "no index.json after embed"
fi

# Both sides change the cache: sync merges rows; verify and embed agree.
(cd team-a && git push -q origin main) 2>/dev/null
(cd b && mg sync >/dev/null 2>&1)
(cd team-a && mg verdict webhook-signatures HELPFUL --reason "a" --context "stripe webhook 400" && mg verdict webhook-signatures HELPFUL --reason "b" --context "github webhook sig" && mg embed && mg sync) >/dev/null 2>&1
(cd b && mg verdict docker-slim HELPFUL --reason "from b one" --context "b image big" && mg verdict docker-slim HELPFUL --reason "from b two" --context "b image huge" && mg embed) >/dev/null 2>&1
(cd b && mg sync >/dev/null 2>&1)
src=$?
why=""
[ "$src" = 0 ] || why="sync exit $src"
(cd b && mg cache verify >/dev/null 2>&1) || why="$why; cache verify fails after the merge ($(cd b && mg cache verify 2>&1 | tail -1))"
st=$(cd b && mg embed --json 2>&1)
if echo "$st" | grep -q '"commit": ""'; then
	(cd b && mg cache verify >/dev/null 2>&1) || why="$why; embed says up to date while cache verify fails"
fi
(cd b && mg cache verify >/dev/null 2>&1) || why="$why; cache verify still fails after embed"
fsck_ok b || why="$why; git fsck fails"
verdict embed-sync-merge-rows "${why#; }"

# Tampered caches: a row dropped from index.json, vectors.npy truncated.
for how in drop-row truncate-npy swap-sha; do
	rm -rf "$T/t-$how"
	cp -a b "$T/t-$how"
	d="$T/t-$how"
	idx=$(ls "$d"/.megagit/embeddings/*/index.json | head -1)
	npy=$(dirname "$idx")/vectors.npy
	case $how in
	drop-row) python3 - "$idx" <<-'P'
		import json, sys
		p = sys.argv[1]; d = json.load(open(p))
		rows = d["rows"] if isinstance(d, dict) else d
		del rows[len(rows) // 2]
		json.dump(d, open(p, "w"), indent=2)
		P
		;;
	truncate-npy) truncate -s -64 "$npy" ;;
	swap-sha) python3 - "$idx" <<-'P'
		import json, sys
		p = sys.argv[1]; d = json.load(open(p))
		r = [r for r in d["rows"] if r["skill"] == "docker-slim"][0]
		r["sha256"] = "0" * 64
		json.dump(d, open(p, "w"), indent=1)
		P
		;;
	esac
	(cd "$d" && git commit -qam "tamper $how") >/dev/null 2>&1
	why=""
	(cd "$d" && mg cache verify >/dev/null 2>&1) && why="cache verify exit 0 on a tampered cache"
	(cd "$d" && mg doctor --offline 2>/dev/null) | grep -qE $'^(fail|warn)\tcache' || why="$why; doctor cache ok on a tampered cache"
	(cd "$d" && mg embed >/dev/null 2>&1)
	(cd "$d" && mg cache verify >/dev/null 2>&1) || why="$why; embed did not repair it (verify: $(cd "$d" && mg cache verify 2>&1 | tail -1 | head -c 160))"
	(cd "$d" && tmo 20 mg route "my docker image is too large" >/dev/null 2>&1) || why="$why; route fails"
	verdict "embed-tampered-$how" "${why#; }"
done

# The anchor row's text hash tampered: verify and embed must agree (verify
# passes only a cache that embed leaves as it is).
rm -rf "$T/t-anchor" && cp -a b "$T/t-anchor"
idx=$(ls "$T"/t-anchor/.megagit/embeddings/*/index.json | head -1)
python3 - "$idx" <<-'P'
	import json, sys
	p = sys.argv[1]; d = json.load(open(p))
	r = [r for r in d["rows"] if r["skill"] == ".anchor"][0]
	r["sha256"] = "0" * 64
	json.dump(d, open(p, "w"), indent=1)
	P
(cd "$T/t-anchor" && git commit -qam "tamper anchor") >/dev/null 2>&1
(cd "$T/t-anchor" && mg cache verify >/dev/null 2>&1)
vrc=$?
e=$(cd "$T/t-anchor" && mg embed --json 2>&1)
why=""
if [ "$vrc" = 0 ] && ! echo "$e" | grep -q '"commit": ""'; then
	why="cache verify exit 0, then embed rewrote the cache (commit $(echo "$e" | grep -o '"commit": "[0-9a-f]*"' | tail -1 | cut -d\" -f4)): the two disagree on a tampered .anchor row"
fi
verdict embed-tampered-anchor-sha "$why"

summary
