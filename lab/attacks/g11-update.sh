#!/usr/bin/env bash
# g11-update: skill install and skill update (issue 38 findings 11 and 13):
# every skill is checked when one left its source; a rewritten upstream
# (unrelated history, or reset behind) is refused; "up to date" only when
# the files match the lock; an empty or junk lock is an error; the caps on
# files and sizes, and on what a fetch unpacks (a zip bomb); an update that
# brings a library or a .megagit/ folder is refused.
. "$(dirname "$0")/lib.sh"

fresh_home
mksource src alpha beta gamma >/dev/null
mkreg r >/dev/null
(cd r && mg skill install "$T/src" --all) >/dev/null 2>&1
up() { # up MSG CMD: change the source and commit
	(cd src && eval "$2" && git add -A && git commit -qm "$1") >/dev/null 2>&1
}

# 1. beta leaves its source while alpha and gamma change.
up "beta gone, others changed" 'git rm -rq skills/beta && echo "alpha v2" >>skills/alpha/SKILL.md && echo "gamma v2" >>skills/gamma/SKILL.md'
(cd r && tmo 60 mg skill update) >"$T/u1" 2>&1
rc=$?
why=""
[ "$rc" = 4 ] || why="exit $rc (want 4)"
grep -q 'alpha v2' r/skills/alpha/SKILL.md || why="$why; alpha not updated"
grep -q 'gamma v2' r/skills/gamma/SKILL.md || why="$why; gamma not updated"
grep -q 'beta.*left its source' "$T/u1" || why="$why; beta not named as left its source"
verdict update-continues-past-a-skill-that-left "${why#; }"
(cd r && mg skill rm beta) >/dev/null 2>&1

# 2. Upstream force-pushed to an unrelated history.
git -C src checkout -q --orphan new && git -C src rm -rfq . >/dev/null && mkdir -p src/skills/alpha src/skills/gamma
skill_md alpha "Handle alpha tasks, rewritten. Use when working on alpha problems in the build." >src/skills/alpha/SKILL.md
skill_md gamma "Handle gamma tasks for the team. Use when working on gamma problems in the build." >src/skills/gamma/SKILL.md
echo "gamma v2" >>src/skills/gamma/SKILL.md
git -C src add -A && git -C src commit -qm unrelated && git -C src branch -qM new main 2>/dev/null || git -C src branch -qf main new
git -C src checkout -q main 2>/dev/null
before=$(git -C r rev-parse HEAD)
(cd r && tmo 60 mg skill update) >"$T/u2" 2>&1
rc=$?
why=""
[ "$rc" = 9 ] || why="exit $rc (want 9)"
[ "$(git -C r rev-parse HEAD)" = "$before" ] || why="$why; the unrelated upstream was applied"
grep -q 'rewritten' "$T/u2" || why="$why; not reported as upstream rewritten"
(cd r && tmo 60 mg skill update --check) >/dev/null 2>&1
crc=$?
[ "$crc" = 0 ] && why="$why; update --check exit 0 while a rewritten upstream waits"
verdict update-refuses-unrelated-upstream "${why#; }"
(cd r && tmo 60 mg skill update --allow-unrelated) >/dev/null 2>&1
verdict update-allow-unrelated-applies "$(grep -q 'rewritten' r/skills/alpha/SKILL.md || echo "--allow-unrelated did not apply the new history")"

# 3. Upstream reset behind the installed commit plus a new commit (related,
# but not a descendant).
echo "alpha v3" >>src/skills/alpha/SKILL.md && git -C src commit -qam v3
(cd r && mg skill update) >/dev/null 2>&1
git -C src reset -q --hard HEAD~1 && echo "alpha v3-other" >>src/skills/alpha/SKILL.md && git -C src commit -qam v3b
before=$(git -C r rev-parse HEAD)
(cd r && tmo 60 mg skill update) >"$T/u3" 2>&1
rc=$?
why=""
[ "$rc" = 9 ] || why="exit $rc (want 9)"
[ "$(git -C r rev-parse HEAD)" = "$before" ] || why="$why; a non-descendant upstream was applied"
verdict update-refuses-reset-upstream "${why#; }"
(cd r && mg skill update --allow-unrelated) >/dev/null 2>&1

# 4. "Up to date" only when the files match the lock: edit, delete, add.
for how in edit delete add; do
	d=$(mktemp -d "$T/m-XXXX")
	mksource "$d/src" one >/dev/null
	mkdir -p "$d/src/skills/one/scripts" && printf '#!/bin/sh\necho hi\n' >"$d/src/skills/one/scripts/run.sh" && git -C "$d/src" add -A && git -C "$d/src" commit -qm s
	mkreg "$d/r" >/dev/null
	(cd "$d/r" && mg skill install "$d/src" one) >/dev/null 2>&1
	case $how in
	edit) echo "local edit" >>"$d/r/skills/one/scripts/run.sh" ;;
	delete) rm "$d/r/skills/one/scripts/run.sh" ;;
	add) echo x >"$d/r/skills/one/extra.txt" ;;
	esac
	git -C "$d/r" add -A && git -C "$d/r" commit -qm "local $how"
	(cd "$d/r" && tmo 60 mg skill update) >"$d/out" 2>&1
	why=""
	grep -q 'one: up to date' "$d/out" && why="skill update says up to date after a local $how: $(grep 'one:' "$d/out" | head -1)"
	grep -q 'edited here' "$d/out" || why="$why; no 'edited here' line"
	verdict "update-sees-local-$how" "${why#; }"
done

# 5. An empty or junk lock is an error, never "nothing installed".
jn=(empty null object list no-version bad-types not-json)
ji=0
for junk in "" "null" "{}" "[]" '{"skills":{}}' '{"version":"x","skills":[]}' 'not json'; do
	d=$(mktemp -d "$T/l-XXXX")
	mkreg "$d/r" >/dev/null
	printf '%s' "$junk" >"$d/r/.megagit/skills.lock" && git -C "$d/r" add -A && git -C "$d/r" commit -qm lock
	(cd "$d/r" && tmo 30 mg skill update) >"$d/out" 2>&1
	rc=$?
	why=""
	[ "$rc" = 5 ] || why="lock '$junk': exit $rc (want 5): $(tail -1 "$d/out" | head -c 100)"
	(cd "$d/r" && mg doctor --offline) 2>/dev/null | grep -qE $'^(fail|warn)\tinstalled' || why="$why; doctor installed check silent"
	verdict "update-junk-lock-${jn[$ji]}" "${why#; }"
	ji=$((ji + 1))
done

# 6. Caps: 1,001 files in a skill; a file over 32 MiB; a skill over 32 MiB;
# an install of over 5,000 files; a source that unpacks to over 256 MiB.
cap_case() { # NAME SETUP-COMMAND [NAMES...]
	local name=$1 setup=$2 d why="" rc
	shift 2
	d=$(mktemp -d "$T/c-XXXX")
	mksource "$d/src" "${@:-big}" >/dev/null
	(cd "$d/src" && eval "$setup" && git add -A && git commit -qm cap) >/dev/null 2>&1
	mkreg "$d/r" >/dev/null
	(cd "$d/r" && exec megagit skill install "$d/src" --all --json) >"$d/out" 2>&1 &
	local mp=$! peak=0 rss i
	for i in $(seq 1 120); do
		kill -0 "$mp" 2>/dev/null || break
		rss=$(ps -o rss= -p "$mp" 2>/dev/null | tr -d ' ')
		[ -n "$rss" ] && [ "$rss" -gt "$peak" ] && peak=$rss
		sleep 0.25
	done
	kill -9 "$mp" 2>/dev/null && why="install still running after 30 s"
	wait "$mp"
	rc=$?
	[ "$rc" = 5 ] || why="$why; exit $rc (want 5): $(grep -v '^\s' "$d/out" | tail -1 | head -c 140)"
	ls "$d/r/skills" | grep -qvE '^(docker-slim|flaky-tests|webhook-signatures)$' && why="$why; something was installed"
	[ "$peak" -gt 716800 ] && why="$why; peak RSS $((peak / 1024)) MiB"
	verdict "install-cap-$name" "${why#; }"
}
cap_case files-1001 'mkdir -p skills/big/f && for i in $(seq 1 1001); do echo $i >skills/big/f/$i.txt; done'
cap_case file-33mib 'head -c 34603008 /dev/urandom >skills/big/blob.dat'
cap_case skill-33mib 'head -c 17825792 /dev/urandom >skills/big/a.dat && head -c 17825792 /dev/urandom >skills/big/b.dat'
cap_case install-5001-files 'for s in s1 s2 s3 s4 s5 s6; do mkdir -p skills/$s/f && { printf -- "---\nname: %s\ndescription: Handle %s tasks. Use when working on %s.\n---\nx\n" $s $s $s >skills/$s/SKILL.md; } && for i in $(seq 1 850); do echo $i >skills/$s/f/$i.txt; done; done' big
cap_case unpack-bomb-300mib 'mkdir -p other && head -c 314572800 /dev/zero >other/zeros.bin'

# 7. An update that brings a library, or a .megagit folder: refused.
d=$(mktemp -d "$T/ub-XXXX")
mksource "$d/src" one >/dev/null
mkreg "$d/r" >/dev/null
(cd "$d/r" && mg skill install "$d/src" one) >/dev/null 2>&1
canary_so "$d/src/skills/one/helper.txt"
git -C "$d/src" add -A && git -C "$d/src" commit -qm lib
(cd "$d/r" && tmo 60 mg skill update) >"$d/out" 2>&1
rc=$?
verdict update-refuses-binary "$([ "$rc" = 10 ] && [ ! -e "$d/r/skills/one/helper.txt" ] || echo "exit $rc (want 10), helper.txt written: $([ -e "$d/r/skills/one/helper.txt" ] && echo yes || echo no)")"
git -C "$d/src" rm -q skills/one/helper.txt && mkdir -p "$d/src/skills/one/.megagit" && echo 'roots: [.]' >"$d/src/skills/one/.megagit/config.yaml" && git -C "$d/src" add -A -f && git -C "$d/src" commit -qm meta
(cd "$d/r" && tmo 60 mg skill update --allow binary) >"$d/out" 2>&1
rc=$?
verdict update-refuses-megagit-folder "$([ "$rc" = 5 ] && [ ! -e "$d/r/skills/one/.megagit" ] || echo "exit $rc (want 5), .megagit written: $([ -e "$d/r/skills/one/.megagit" ] && echo yes || echo no)")"

summary
