#!/usr/bin/env bash
# g10-stop: the stop hook on hostile transcripts (issue 38 finding 10): over
# 64 MiB with the tail window starting inside one huge line, a 9 MiB last
# line, a 10 GiB sparse file, many 1 MiB lines, a FIFO, /dev/zero, a
# symlink to it, a folder. Each: exit 0, nothing on stdout, well inside
# the 30 s deadline (here: 8 s), and the valid tag at the end recorded.
. "$(dirname "$0")/lib.sh"

fresh_home
mkreg r >/dev/null
cd r
R=$T/r
user_line() { printf '{"type":"user","sessionId":"%s","message":{"role":"user","content":"%s"}}\n' "$1" "$2"; }
tag_line() { printf '{"type":"assistant","sessionId":"%s","message":{"role":"assistant","content":[{"type":"text","text":"Done. <skill-used name=\\"docker-slim\\" verdict=\\"HELPFUL\\" reason=\\"%s\\"/>"}]}}\n' "$1" "$2"; }
# huge_line SESSION MiB: one valid JSON line of a tool result of that size.
huge_line() {
	printf '{"type":"user","sessionId":"%s","message":{"role":"user","content":[{"type":"tool_result","content":"' "$1"
	head -c $(($2 * 1048576)) /dev/zero | tr '\0' 'x'
	printf '"}]}}\n'
}
# stop_case NAME SESSION TRANSCRIPT WANT_VERDICT
stop_case() {
	local name=$1 sid=$2 tr=$3 want=$4 why="" s e rc
	hook_event "my docker image is too large, shrink it" "$sid" "$R" | mg hook prompt --agent claude >/dev/null 2>&1
	local n0
	n0=$(cat .megagit/ledger/docker-slim.jsonl 2>/dev/null | wc -l)
	s=$(date +%s%N)
	python3 -c 'import json,sys; print(json.dumps({"session_id": sys.argv[1], "transcript_path": sys.argv[2], "cwd": sys.argv[3], "hook_event_name": "Stop"}))' "$sid" "$tr" "$R" |
		tmo 40 mg hook stop --agent claude >"$T/stop.out" 2>/dev/null
	rc=$?
	e=$((($(date +%s%N) - s) / 1000000))
	[ "$rc" = 0 ] || why="exit $rc"
	[ -s "$T/stop.out" ] && why="$why; printed on stdout: $(head -c 80 "$T/stop.out")"
	[ "$e" -gt 8000 ] && why="$why; took ${e} ms"
	local n1
	n1=$(cat .megagit/ledger/docker-slim.jsonl 2>/dev/null | wc -l)
	[ "$want" = yes ] && [ "$n1" -le "$n0" ] && why="$why; the tag on the last line was not recorded"
	[ "$want" = no ] && [ "$n1" -gt "$n0" ] && why="$why; a verdict was recorded from a transcript that is no file"
	verdict "stop-$name" "${why#; }"
	echo "stop-$name ${e}ms" >>"$T/stop.times"
}

# 1. Over 64 MiB; the last 64 MiB start inside one 66 MiB line.
{ user_line h1 "docker image big"; huge_line h1 66; tag_line h1 "after a huge line"; } >"$T/t1.jsonl"
stop_case over-64mib-inside-huge-line h1 "$T/t1.jsonl" yes
# 2. A last line of 9 MiB (over the 8 MiB line cap) before the tag.
{ user_line h2 "docker image big"; huge_line h2 9; tag_line h2 "after 9 MiB"; } >"$T/t2.jsonl"
stop_case line-over-8mib h2 "$T/t2.jsonl" yes
# 3. 70 lines of 1 MiB.
{ user_line h3 "docker image big"; for i in $(seq 1 70); do huge_line h3 1; done; tag_line h3 "after many lines"; } >"$T/t3.jsonl"
stop_case many-1mib-lines h3 "$T/t3.jsonl" yes
# 4. A 10 GiB sparse file (NULs), the tag appended.
truncate -s 10G "$T/t4.jsonl" && { printf '\n'; tag_line h4 "after sparse"; } >>"$T/t4.jsonl"
stop_case sparse-10gib h4 "$T/t4.jsonl" yes
rm -f "$T/t4.jsonl"
# 5. Not regular files.
mkfifo "$T/fifo"
stop_case fifo h5 "$T/fifo" no
stop_case dev-zero h6 /dev/zero no
ln -s /dev/zero "$T/zero-link"
stop_case symlink-to-dev-zero h7 "$T/zero-link" no
mkdir "$T/adir"
stop_case folder h8 "$T/adir" no
# 6. hook stop --transcript by hand on the 66 MiB one: bounded too.
s=$(date +%s%N)
tmo 40 mg hook stop --agent claude --transcript "$T/t1.jsonl" >/dev/null 2>&1
e=$((($(date +%s%N) - s) / 1000000))
verdict stop-replay-by-hand-huge "$([ "$e" -gt 8000 ] && echo "hook stop --transcript took ${e} ms")"
rm -f "$T"/t[1-3].jsonl

summary
