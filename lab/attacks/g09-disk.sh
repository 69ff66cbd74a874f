#!/usr/bin/env bash
# g09-disk: a full disk (a real tmpfs, in a mount namespace of its own) at
# several amounts of free space (issue 38 finding 9): `megagit index` must
# fail naming route-index.bin, never say "up to date"; a verdict, embed,
# sync and the hooks must fail cleanly (the hooks silently), never print a
# commit that is not in the ledger, and leave a registry that `doctor
# --fix` repairs once space is back, with git fsck clean.
. "$(dirname "$0")/lib.sh"

if ! unshare -m true 2>/dev/null; then
	broken disk-setup "cannot make a mount namespace here (needs root or CAP_SYS_ADMIN); group skipped"
	summary
	exit 0
fi

fresh_home
mkshared team >/dev/null
mg clone "file://$T/team.git" seed >/dev/null 2>&1
(cd seed && mg verdict docker-slim HELPFUL --reason ok --context "docker image big" && mg index && mg embed) >/dev/null 2>&1
(cd team-a && mg verdict flaky-tests HELPFUL --reason "from a" && mg sync) >/dev/null 2>&1

# fill DIR FREE: fill the file system of DIR until FREE bytes are left.
cat >"$T/inner.sh" <<'IN'
set -u
fill() {
	local dir=$1 free=$2 avail
	rm -f "$dir/.filler"
	avail=$(( $(stat -f -c '%a*%S' "$dir") ))
	[ "$avail" -gt "$free" ] && head -c $((avail - free)) /dev/zero >"$dir/.filler" 2>/dev/null
	sync
}
mnt() { mount -t tmpfs -o size=$2 tmpfs "$1"; }
IN

# 1. index with .megagit/local on a full disk.
for free in 0 4096 65536; do
	rm -rf "$T/ix" && cp -a seed "$T/ix"
	rm -f "$T/ix/.megagit/local/route-index.bin"
	(cd "$T/ix" && echo "more" >>skills/docker-slim/SKILL.md && git commit -qam edit) >/dev/null 2>&1
	unshare -m bash -c '. "$0"; cp -a "$1/.megagit/local" "$1/lcopy"; mnt "$1/.megagit/local" 1m; cp -a "$1/lcopy/." "$1/.megagit/local/"; fill "$1/.megagit/local" "$2";
		cd "$1" && megagit index >"$1/../ix.out" 2>&1; echo $? >"$1/../ix.rc"; test -s .megagit/local/route-index.bin && megagit index >/dev/null 2>&1 && echo yes >"$1/../ix.ok"
		echo "{\"session_id\":\"s1\",\"cwd\":\"$1\",\"prompt\":\"my docker image is too large\"}" | megagit hook prompt --agent claude >"$1/../ixh.out" 2>/dev/null; echo $? >"$1/../ixh.rc"' "$T/inner.sh" "$T/ix" "$free"
	rc=$(cat "$T/ix.rc")
	why=""
	if [ ! -e "$T/ix.ok" ]; then
		[ "$rc" = 0 ] && why="index exit 0 but wrote no usable index ($(tail -1 "$T/ix.out" | head -c 120))"
		grep -qi 'up to date' "$T/ix.out" && why="$why; index said up to date"
	fi
	rm -f "$T/ix.ok"
	[ "$rc" != 0 ] && ! grep -q 'route-index' "$T/ix.out" && why="$why; the error does not name route-index.bin: $(tail -1 "$T/ix.out" | head -c 120)"
	[ "$(cat "$T/ixh.rc")" = 0 ] || why="$why; hook prompt exit $(cat "$T/ixh.rc")"
	verdict "disk-index-free-$free" "${why#; }"
done

# The hooks on a full disk: the prompt hook's stdout is the agent's, so only
# the stop hook's stdout is checked (nothing), and both exit 0.
cat >"$T/stop.sh" <<'ST'
t=/tmp/stop-$$.jsonl
printf '%s\n' '{"type":"user","sessionId":"s9","message":{"role":"user","content":"docker image big"}}' \
	'{"type":"assistant","sessionId":"s9","message":{"role":"assistant","content":[{"type":"text","text":"done <skill-used name=\"docker-slim\" verdict=\"HELPFUL\" reason=\"r\"/>"}]}}' >$t
echo "{\"session_id\":\"s9\",\"cwd\":\"$PWD\",\"prompt\":\"my docker image is too large\"}" | megagit hook prompt --agent claude >/dev/null 2>&1 || exit 3
out=$(echo "{\"session_id\":\"s9\",\"transcript_path\":\"$t\",\"cwd\":\"$PWD\",\"hook_event_name\":\"Stop\"}" | megagit hook stop --agent claude 2>/dev/null) || exit 4
rm -f $t
[ -z "$out" ] || { echo "stop hook stdout: $out"; exit 5; }
ST

# 2. Verdicts, embed, sync and the stop hook with the whole registry on a
# full disk, at five amounts of free space each.
disk_case() { # NAME FREE COMMAND
	local name=$1 free=$2 cmd=$3
	rm -rf "$T/dk"
	unshare -m bash -c '. "$0"; mkdir -p "$1"; mnt "$1" 24m; cp -a "$2" "$1/r"; cd "$1/r";
		rm -f .megagit/local/route-index.bin; megagit index >/dev/null 2>&1; fill "$1" "$3"
		sh -c "$4" >"$1/../dk.out" 2>&1; echo $? >"$1/../dk.rc"
		rm -f "$1/.filler"
		megagit doctor --fix >"$1/../dk.fix" 2>&1
		megagit doctor --offline >"$1/../dk.doc" 2>&1; echo $? >"$1/../dk.docrc"
		git fsck --strict >"$1/../dk.fsck" 2>&1; echo $? >"$1/../dk.fsckrc"
		cat .megagit/ledger/*.jsonl >"$1/../dk.ledger" 2>/dev/null
		git log --format=%H >"$1/../dk.log"' "$T/inner.sh" "$T/dk" "$T/seed" "$free" "$cmd"
	local why="" rc c
	rc=$(cat "$T/dk.rc")
	[ "$(cat "$T/dk.fsckrc")" = 0 ] || why="git fsck fails after doctor --fix: $(head -2 "$T/dk.fsck" | tr '\n' ' ')"
	[ "$(cat "$T/dk.docrc")" = 0 ] || why="$why; doctor after --fix: $(grep -E '^fail' "$T/dk.doc" | head -2 | tr '\n\t' '  ')"
	for c in $(grep -oE '\b[0-9a-f]{40}\b' "$T/dk.out" | sort -u); do
		grep -q "$c" "$T/dk.log" || why="$why; printed commit ${c:0:12} is not in the history"
	done
	if [ "$rc" = 0 ] && [ "${4:-}" = verdict ] && ! grep -q "full disk $free" "$T/dk.ledger"; then
		why="$why; exit 0 but the verdict is not in the ledger"
	fi
	raw_ctl "$T/dk.out" && why="$why; raw control bytes in the output"
	case $name in
	verdict) [ "$free" -lt 8192 ] && [ "$rc" = 0 ] && grep -q "full disk $free" "$T/dk.ledger" || true ;;
	stop-hook) [ "$rc" = 0 ] || why="$why; the hooks printed something or exited $rc: $(head -c 160 "$T/dk.out")" ;;
	esac
	echo "$name $free rc=$rc" >>"$T/disk.rcs"
	verdict "disk-$name-free-$free" "${why#; }"
}
for free in 0 1024 8192 32768 131072; do
	disk_case verdict "$free" "megagit verdict docker-slim HARMFUL --reason 'full disk $free' --context 'c'" verdict
done
for free in 0 16384 131072; do
	disk_case embed "$free" "echo extra >>skills/flaky-tests/SKILL.md && git commit -qam e && megagit embed"
	disk_case sync "$free" "megagit verdict webhook-signatures HELPFUL --reason s$free; megagit sync"
	disk_case stop-hook "$free" "sh $T/stop.sh"
done

summary
