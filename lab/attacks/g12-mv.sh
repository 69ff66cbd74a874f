#!/usr/bin/env bash
# g12-mv: skill mv of an installed skill keeps it installed (issue 38
# finding 12): the lock entry moves to the new name in the same commit,
# update follows the source under the new name, --check agrees, the ledger
# follows, a move back and forth, a move shared by sync, a move onto a name
# taken.
. "$(dirname "$0")/lib.sh"

fresh_home
mksource src alpha beta >/dev/null
mkshared team >/dev/null
(cd team-a && mg skill install "$T/src" --all && mg verdict alpha HELPFUL --reason ok --context "alpha ctx" && mg sync) >/dev/null 2>&1
mg clone "file://$T/team.git" b >/dev/null 2>&1
lock_has() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if sys.argv[2] in d.get("skills",{}) else 1)' "$1/.megagit/skills.lock" "$2"; }

cd team-a
out=$(mg skill mv alpha alpha-two 2>&1)
rc=$?
why=""
[ "$rc" = 0 ] || why="skill mv exit $rc: $out"
lock_has . alpha-two || why="$why; no lock entry for alpha-two"
lock_has . alpha && why="$why; the old entry alpha stays"
git show --stat HEAD | grep -q skills.lock || why="$why; the lock did not move in the mv commit"
[ -f .megagit/ledger/alpha-two.jsonl ] || why="$why; the ledger did not follow"
grep -q '^name: alpha-two' skills/alpha-two/SKILL.md || why="$why; SKILL.md name not changed"
verdict mv-installed-keeps-lock "${why#; }"

(mg skill update --check >"$T/c1" 2>&1)
crc=$?
why=""
[ "$crc" = 0 ] || why="update --check after mv exit $crc: $(tail -1 "$T/c1")"
grep -q 'edited here' "$T/c1" && why="$why; the rename counts as a local edit"
echo "alpha v2" >>"$T/src/skills/alpha/SKILL.md" && git -C "$T/src" commit -qam v2
mg skill update >"$T/c2" 2>&1
urc=$?
[ "$urc" = 0 ] || why="$why; update exit $urc: $(tail -1 "$T/c2")"
grep -q 'alpha v2' skills/alpha-two/SKILL.md || why="$why; the update did not reach alpha-two"
grep -q '^name: alpha-two' skills/alpha-two/SKILL.md || why="$why; the update wrote the old name back"
[ -e skills/alpha ] && why="$why; the update recreated skills/alpha"
grep -q '"helpful_count": 1\|helpful_count: 1' skills/alpha-two/SKILL.md || why="$why; evidence lost"
verdict mv-then-update-follows "${why#; }"

# Back and forth.
mg skill mv alpha-two alpha-three >/dev/null 2>&1 && mg skill mv alpha-three alpha >/dev/null 2>&1
why=""
lock_has . alpha || why="no lock entry after a move back"
lock_has . alpha-two && why="$why; stale entry alpha-two"
lock_has . alpha-three && why="$why; stale entry alpha-three"
(mg skill update --check >/dev/null 2>&1) || why="$why; update --check exit $?"
verdict mv-back-and-forth "${why#; }"

# Onto a taken name: refused, nothing changes.
before=$(git rev-parse HEAD)
mg skill mv alpha beta >/dev/null 2>&1
rc=$?
why=""
[ "$rc" = 5 ] || why="exit $rc (want 5)"
[ "$(git rev-parse HEAD)" = "$before" ] || why="$why; a commit was made"
lock_has . alpha && lock_has . beta || why="$why; a lock entry was lost"
verdict mv-onto-taken-name "${why#; }"

# Shared by sync: the teammate's lock follows the move.
mg skill mv beta beta-moved >/dev/null 2>&1
mg sync >/dev/null 2>&1
cd ../b
mg sync >/dev/null 2>&1
why=""
lock_has . beta-moved || why="the clone's lock has no beta-moved after sync"
lock_has . beta && why="$why; the clone's lock keeps beta"
(mg skill update --check >/dev/null 2>&1) || why="$why; update --check in the clone exit $?"
verdict mv-shared-by-sync "${why#; }"

# Moved here while the teammate updated the same skill: a merge whose lock
# holds beta-b only, or a conflict (exit 9) that changes nothing here.
(cd ../team-a && echo "beta v2" >>"$T/src/skills/beta/SKILL.md" && git -C "$T/src" commit -qam bv2 && mg skill update && mg sync) >/dev/null 2>&1
mg skill mv beta-moved beta-b >/dev/null 2>&1
head_before=$(git rev-parse HEAD)
lock_before=$(sha256sum .megagit/skills.lock)
mg sync >"$T/s3" 2>&1
src=$?
why=""
if [ "$src" = 0 ]; then
	lock_has . beta-b || why="no lock entry beta-b after the merge"
	lock_has . beta-moved && why="$why; stale entry beta-moved after the merge"
elif [ "$src" = 9 ]; then
	[ "$(git rev-parse HEAD)" = "$head_before" ] || why="conflict, but the branch moved"
	[ "$(sha256sum .megagit/skills.lock)" = "$lock_before" ] || why="$why; conflict, but the lock changed"
	git status --porcelain | grep -q . && why="$why; conflict left files changed: $(git status --porcelain | head -2 | tr '\n' ' ')"
else
	why="sync exit $src: $(tail -1 "$T/s3" | head -c 160)"
fi
fsck_ok . || why="$why; git fsck fails"
verdict mv-while-teammate-updates "${why#; }"

summary
