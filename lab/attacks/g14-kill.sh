#!/usr/bin/env bash
# g14-kill: kill -9 at random points, 20 times each, of verdict, sync,
# skill install, skill update, skill mv, adopt and adopt --restore, layout
# ref|branch, embed. After each kill, `megagit doctor --fix` (the one
# repair the docs name) must leave: git fsck --strict clean, doctor
# passing, every verdict whose command printed its commit in the ledger
# exactly once (and in the history), and each write all or nothing.
. "$(dirname "$0")/lib.sh"
N=${ATK_KILL_N:-20}
RANDOM=${ATK_SEED:-38} # the same kill points run after run (timing aside)

# killrun MAXMS CMD...: start CMD, kill -9 it after a random delay (or let
# it end); KILLED=1 when the kill landed. The delay is drawn below the
# command's own running time, learnt from the runs that ended (KD, ms;
# MAXMS is the first guess), so most kills land mid-way. Output: $T/kr.out.
KD=""
killrun() {
	local max=$1
	shift
	[ -n "$KD" ] || KD=$max
	local s ms p e
	s=$(date +%s%N)
	"$@" >"$T/kr.out" 2>&1 &
	p=$!
	ms=$((RANDOM % (KD > 5 ? KD : 5)))
	sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
	KILLED=0
	kill -9 "$p" 2>/dev/null && KILLED=1
	wait "$p" 2>/dev/null
	if [ "$KILLED" = 0 ]; then
		e=$((($(date +%s%N) - s) / 1000000))
		KD=$(((KD + e) / 2))
	fi
	return 0
}
# repair DIR: doctor --fix, then what must hold; prints problems.
repair() {
	local d=$1 p=""
	(cd "$d" && mg doctor --fix --offline) >"$T/fix.out" 2>&1
	(cd "$d" && mg doctor --offline) >"$T/doc.out" 2>&1 || p="$p doctor after --fix: $(grep -E '^fail' "$T/doc.out" | cut -f2,3 | head -2 | tr '\n\t' '  ');"
	git -C "$d" fsck --strict >"$T/fsck.out" 2>&1 || p="$p git fsck: $(head -1 "$T/fsck.out");"
	echo "$p"
}
# printed_in_ledger DIR LOGFILE: every "reason KEY" whose command printed a
# commit hash: in the ledger exactly once, its commit in the history.
check_printed() {
	local d=$1 log=$2 p="" key c n
	while read -r key c; do
		n=$(cat "$d"/.megagit/ledger/*.jsonl 2>/dev/null | grep -c "\"$key\"")
		[ "$n" = 1 ] || p="$p $key printed $c but is in the ledger $n times;"
		git -C "$d" merge-base --is-ancestor "$c" HEAD 2>/dev/null || p="$p $key's commit ${c:0:12} is not in the branch;"
	done <"$log"
	# and no key at all twice
	local dup
	dup=$(cat "$d"/.megagit/ledger/*.jsonl 2>/dev/null | grep -o '"reason":"k[0-9a-z-]*"' | sort | uniq -d | head -3 | tr '\n' ' ')
	[ -n "$dup" ] && p="$p reasons twice in the ledger: $dup;"
	echo "$p"
}
# note_printed KEY: after a verdict run, the printed commit (if any).
note_printed() {
	local c
	c=$(grep -oE '^[0-9a-f]{40}$' "$T/kr.out" | tail -1)
	[ -n "$c" ] && echo "$1 $c" >>"$T/printed"
	return 0
}
report() { # NAME PROBLEMS KILLS
	verdict "$1" "$([ -n "$2" ] && echo "$2" | head -c 600)"
	echo "$1: $3 of $N runs killed mid-way" >>"$ATK_TMP/kills.txt"
}

# 1. verdict
fresh_home
mkreg r >/dev/null
: >"$T/printed"
probs="" kills=0 KD=""
for i in $(seq 1 "$N"); do
	killrun 120 mg -C r verdict docker-slim HELPFUL --reason "k$i" --context "ctx $i"
	kills=$((kills + KILLED))
	note_printed "k$i"
	p=$(repair r)
	[ -n "$p" ] && probs="$probs run $i:$p"
done
probs="$probs$(check_printed r "$T/printed")"
report kill-verdict "$probs" "$kills"

# 2. sync: a teammate pushes, we record and sync; killed mid-sync.
fresh_home
mkshared team >/dev/null
mg clone "file://$T/team.git" b >/dev/null 2>&1
: >"$T/printed"
: >"$T/printed-a"
probs="" kills=0 KD=""
for i in $(seq 1 "$N"); do
	(cd team-a && mg verdict flaky-tests HARMFUL --reason "ka$i" && mg sync) >"$T/a.out" 2>&1
	c=$(grep -oE '^[0-9a-f]{40}$' "$T/a.out" | head -1)
	[ -n "$c" ] && echo "ka$i $c" >>"$T/printed-a"
	mg -C b verdict docker-slim HELPFUL --reason "kb$i" >"$T/kr.out" 2>&1
	note_printed "kb$i"
	killrun 800 mg -C b sync
	kills=$((kills + KILLED))
	p=$(repair b)
	[ -n "$p" ] && probs="$probs run $i:$p"
done
(cd b && mg sync >/dev/null 2>&1)
(cd team-a && mg sync >/dev/null 2>&1)
probs="$probs$(check_printed b "$T/printed")"
for k in $(cut -d' ' -f1 "$T/printed-a"); do
	n=$(cat b/.megagit/ledger/*.jsonl | grep -c "\"$k\"")
	[ "$n" = 1 ] || probs="$probs teammate's $k in our ledger $n times after the last sync;"
done
for k in $(cut -d' ' -f1 "$T/printed"); do
	n=$(cat team-a/.megagit/ledger/*.jsonl | grep -c "\"$k\"")
	[ "$n" = 1 ] || probs="$probs our $k in the teammate's ledger $n times after the last sync;"
done
fsck_ok team.git || probs="$probs the remote fails git fsck;"
report kill-sync "$probs" "$kills"

# 3. skill install: all or nothing.
fresh_home
mksource src one two three >/dev/null
mkreg base >/dev/null
probs="" kills=0 KD=""
for i in $(seq 1 "$N"); do
	rm -rf r && cp -a base r
	killrun 200 mg -C r skill install "$T/src" --all
	kills=$((kills + KILLED))
	p=$(repair r)
	n=$(ls r/skills | grep -cE '^(one|two|three)$')
	l=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["skills"]))' r/.megagit/skills.lock 2>/dev/null || echo 0)
	[ "$n" = 0 ] || [ "$n" = 3 ] || p="$p $n of 3 skills on disk;"
	[ "$n" = "$l" ] || p="$p $n skills on disk, $l in the lock;"
	git -C r status --porcelain | grep -q . && p="$p work tree not clean: $(git -C r status --porcelain | head -2 | tr '\n' ' ');"
	[ -n "$p" ] && probs="$probs run $i:$p"
done
report kill-skill-install "$probs" "$kills"

# 4. skill update: all or nothing, files matching the lock.
rm -rf base2 && cp -a base base2
(cd base2 && mg skill install "$T/src" --all) >/dev/null 2>&1
for s in one two three; do echo "v2 of $s" >>"src/skills/$s/SKILL.md"; done
git -C src commit -qam v2
probs="" kills=0 KD=""
for i in $(seq 1 "$N"); do
	rm -rf r && cp -a base2 r
	killrun 200 mg -C r skill update
	kills=$((kills + KILLED))
	p=$(repair r)
	n=$(grep -l 'v2 of' r/skills/{one,two,three}/SKILL.md 2>/dev/null | wc -l)
	[ "$n" = 0 ] || [ "$n" = 3 ] || p="$p $n of 3 skills updated;"
	(cd r && mg skill update --check --json) >"$T/chk" 2>&1
	grep -q 'edited here' "$T/chk" && p="$p files do not match the lock after the kill;"
	[ -n "$p" ] && probs="$probs run $i:$p"
done
report kill-skill-update "$probs" "$kills"

# 5. skill mv of an installed skill with verdicts.
rm -rf base3 && cp -a base2 base3
(cd base3 && mg verdict one HELPFUL --reason "kmv") >/dev/null 2>&1
probs="" kills=0 empties=0 KD=""
for i in $(seq 1 $((2 * N))); do
	rm -rf r && cp -a base3 r
	killrun 120 mg -C r skill mv one uno
	kills=$((kills + KILLED))
	p=$(repair r)
	a=0 b=0
	[ -f r/skills/one/SKILL.md ] && a=1
	[ -f r/skills/uno/SKILL.md ] && b=1
	for e in one uno; do
		[ -d "r/skills/$e" ] && [ -z "$(ls -A "r/skills/$e")" ] && empties=$((empties + 1))
	done
	[ $((a + b)) = 1 ] || p="$p skills/one $a, skills/uno $b;"
	name=one
	[ $b = 1 ] && name=uno
	python3 -c 'import json,sys; sys.exit(0 if sys.argv[2] in json.load(open(sys.argv[1]))["skills"] else 1)' r/.megagit/skills.lock "$name" || p="$p no lock entry for $name;"
	grep -q '"kmv"' "r/.megagit/ledger/$name.jsonl" 2>/dev/null || p="$p the verdict is not in $name's ledger;"
	[ -n "$p" ] && probs="$probs run $i:$p"
done
N2=$N N=$((2 * N))
report kill-skill-mv "$probs" "$kills"
N=$N2
verdict kill-skill-mv-no-debris "$([ "$empties" = 0 ] || echo "$empties of $((2 * N)) killed moves left an empty skills/one or skills/uno folder that doctor --fix reports as ok and leaves")"

# 6. adopt and adopt --restore, alternating; a clone skill among them.
fresh_home
mkreg r >/dev/null
mkdir -p r/.agents/skills/plain && skill_md plain "Plain skill for docker builds. Use when the docker build needs plain." >r/.agents/skills/plain/SKILL.md && echo note >r/.agents/skills/plain/notes.md
mkdir -p "$HOME/.claude/skills/mine" && skill_md mine "Mine for docker builds. Use when the docker build needs mine." >"$HOME/.claude/skills/mine/SKILL.md"
git init -q "$HOME/.claude/skills/cl" && skill_md cl "Clone skill for docker builds. Use when the docker build needs cl." >"$HOME/.claude/skills/cl/SKILL.md" && git -C "$HOME/.claude/skills/cl" add -A && git -C "$HOME/.claude/skills/cl" commit -qm c
want_plain=$(sha256sum r/.agents/skills/plain/SKILL.md | cut -c1-64)
probs="" kills=0 KD=""
for i in $(seq 1 "$N"); do
	if [ $((i % 2)) = 1 ]; then
		killrun 150 mg -C r adopt --scope all
	else
		killrun 150 mg -C r adopt --restore --scope all
	fi
	kills=$((kills + KILLED))
	p=$(repair r)
	# each skill lives in exactly one place, whole
	for s in plain mine; do
		here=0
		[ -f "r/skills/$s/SKILL.md" ] && here=$((here + 1))
		[ -f "$XDG_DATA_HOME/megagit/user/skills/$s/SKILL.md" ] && here=$((here + 1))
		[ -f "r/.agents/skills/$s/SKILL.md" ] && here=$((here + 1))
		[ -f "$HOME/.claude/skills/$s/SKILL.md" ] && here=$((here + 1))
		[ "$here" = 1 ] || p="$p $s in $here places;"
	done
	[ -d "$HOME/.claude/skills/cl/.git" ] && git -C "$HOME/.claude/skills/cl" log -1 >/dev/null 2>&1 || p="$p the clone skill lost its .git;"
	[ -n "$p" ] && probs="$probs run $i:$p"
done
(cd r && mg adopt --restore --scope all) >/dev/null 2>&1
[ "$(sha256sum r/.agents/skills/plain/SKILL.md 2>/dev/null | cut -c1-64)" = "$want_plain" ] || probs="$probs plain's SKILL.md differs after the last restore;"
[ -f r/.agents/skills/plain/notes.md ] || probs="$probs plain/notes.md lost;"
report kill-adopt-restore "$probs" "$kills"

# 7. layout ref and layout branch, alternating, in a project with verdicts.
fresh_home
mkdir proj && (cd proj && git init -q && echo hi >README && git add . && git commit -qm init && git init -q) >/dev/null 2>&1
(cd proj && mg init --layout branch . && mg skill add docker-slim --description "$DESC_DOCKER") >/dev/null 2>&1
: >"$T/printed"
probs="" kills=0 KD=""
for i in $(seq 1 "$N"); do
	mg -C proj verdict docker-slim NEUTRAL --reason "kl$i" >"$T/kr.out" 2>&1
	note_printed "kl$i"
	if [ $((i % 2)) = 1 ]; then
		killrun 150 mg -C proj layout ref
	else
		killrun 150 mg -C proj layout branch
	fi
	kills=$((kills + KILLED))
	p=$(repair proj)
	(cd proj && mg layout) >"$T/lay" 2>&1 || p="$p megagit layout fails: $(tail -1 "$T/lay");"
	[ -n "$p" ] && probs="$probs run $i:$p"
done
# verdicts: read from the registry branch, whichever layout
lay=$(cd proj && mg layout 2>/dev/null | cut -f1)
if [ "$lay" = ref ]; then
	while read -r key c; do
		n=$(git -C proj show megagit:.megagit/ledger/docker-slim.jsonl 2>/dev/null | grep -c "\"$key\"")
		[ "$n" = 1 ] || probs="$probs $key printed but in the ledger $n times;"
	done <"$T/printed"
else
	probs="$probs$(check_printed proj "$T/printed")"
fi
report kill-layout-moves "$probs" "$kills"

# 8. embed, with verdicts changing the texts between runs.
fresh_home
mkreg r >/dev/null
probs="" kills=0 KD=""
for i in $(seq 1 "$N"); do
	(cd r && mg verdict flaky-tests HELPFUL --reason "ke$i" --context "embed ctx $i") >/dev/null 2>&1
	killrun 150 mg -C r embed
	kills=$((kills + KILLED))
	p=$(repair r)
	(cd r && mg embed >/dev/null 2>&1 && mg cache verify >/dev/null 2>&1) || p="$p cache verify fails after a full embed: $(cd r && mg cache verify 2>&1 | tail -1 | head -c 120);"
	[ -n "$p" ] && probs="$probs run $i:$p"
done
report kill-embed "$probs" "$kills"

cat "$ATK_TMP/kills.txt" >&2
summary
