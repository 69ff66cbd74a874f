#!/usr/bin/env bash
# g08-mcp: `megagit mcp` on stdio (issue 38 finding 8): requests already
# read are answered when stdin closes (a record_verdict sent last, several
# pipelined, duplicate ids, a last line without its newline, a verdict that
# must wait for the registry lock); an id with no method gets an error;
# junk lines never end the session.
. "$(dirname "$0")/lib.sh"

fresh_home
mkreg r >/dev/null
R=$T/r

# check_replies OUT IDS...: every id has exactly one reply in OUT (a JSON
# line with that id and a result or error); prints what is wrong.
check_replies() {
	python3 - "$@" <<-'P'
	import json, sys
	out, ids = sys.argv[1], sys.argv[2:]
	seen = {}
	for line in open(out, encoding="utf-8", errors="replace"):
	    try:
	        m = json.loads(line)
	    except ValueError:
	        print("a non-JSON line on stdout: %r" % line[:80]); continue
	    if "result" in m or "error" in m:
	        k = json.dumps(m.get("id"))
	        seen[k] = seen.get(k, 0) + 1
	for i in ids:
	    n = seen.get(i, 0)
	    if n != 1:
	        print("id %s answered %d times" % (i, n))
	P
}
# verdicts_committed OUT: each record_verdict reply's commit is in the log.
verdicts_committed() {
	local c missing=""
	for c in $(grep -o '"commit\\*"*:\\*"*[0-9a-f]\{40\}' "$1" | grep -o '[0-9a-f]\{40\}' | sort -u); do
		git -C "$R" cat-file -e "$c" 2>/dev/null || missing="$missing $c"
	done
	echo "$missing"
}
ledger_lines() { cat "$R"/.megagit/ledger/*.jsonl 2>/dev/null | wc -l; }

# 1. record_verdict sent last, stdin closed at once.
n0=$(ledger_lines)
{ mcp_init; mcp_tool 1 search_skills '{"query":"my docker image is too large"}'; mcp_tool 2 record_verdict '{"name":"docker-slim","verdict":"HELPFUL","reason":"sent last"}'; } | mcp_run "$R" >"$T/o1" 2>"$T/e1"
why=$(check_replies "$T/o1" 0 1 2 | tr '\n' ';')
[ "$(ledger_lines)" -gt "$n0" ] || why="$why the verdict is not in the ledger"
verdict mcp-eof-verdict-sent-last "$why"

# 2. Eight verdicts pipelined, then EOF.
n0=$(ledger_lines)
{ mcp_init; mcp_tool 1 search_skills '{"query":"flaky test fails randomly in ci"}'
	for i in $(seq 10 17); do mcp_tool "$i" record_verdict "{\"name\":\"flaky-tests\",\"verdict\":\"NEUTRAL\",\"reason\":\"pipelined $i\"}"; done; } | mcp_run "$R" >"$T/o2" 2>"$T/e2"
why=$(check_replies "$T/o2" 0 1 10 11 12 13 14 15 16 17 | tr '\n' ';')
added=$(($(ledger_lines) - n0))
# The SDK runs tool calls concurrently; a verdict is handed on only once
# the requests read before it are answered, so all eight are acknowledged
# and in the ledger.
acked=$(grep -c '"Recorded NEUTRAL for flaky-tests' "$T/o2" || true)
[ "$added" = 8 ] && [ "$acked" = 8 ] || why="$why $added verdict(s) in the ledger, $acked acknowledged (want 8)"
verdict mcp-eof-pipelined-verdicts "$why"

# 3. Duplicate ids (a sloppy client), stdin kept open 3 s: each request is
# run and answered, or refused with an error; never left without a reply.
n0=$(ledger_lines)
{ mcp_init; mcp_tool 1 search_skills '{"query":"stripe webhook signature"}'
	mcp_tool 7 record_verdict '{"name":"webhook-signatures","verdict":"HELPFUL","reason":"dup one"}'
	mcp_tool 7 record_verdict '{"name":"webhook-signatures","verdict":"HARMFUL","reason":"dup two"}'; sleep 3; } | mcp_run "$R" >"$T/o3" 2>"$T/e3"
replies=$(grep -c '"id":7' "$T/o3")
added=$(($(ledger_lines) - n0))
why=""
[ "$replies" = 2 ] || why="$replies reply for two requests of id 7 ($added verdict committed): the other got neither an answer nor an error"
verdict mcp-duplicate-ids-answered "$why"

# 4. The last request without its newline.
n0=$(ledger_lines)
{ mcp_init; mcp_tool 1 search_skills '{"query":"my docker image is too large"}'; printf '%s' "$(mcp_tool 3 record_verdict '{"name":"docker-slim","verdict":"NEUTRAL","reason":"no newline"}')"; } | mcp_run "$R" >"$T/o4" 2>"$T/e4"
why=$(check_replies "$T/o4" 3 | tr '\n' ';')
[ "$(ledger_lines)" -gt "$n0" ] || why="$why the verdict is not in the ledger"
verdict mcp-eof-last-line-without-newline "$why"

# 5. A verdict that waits for the registry lock (held 3 s by flock), EOF
# meanwhile: committed and answered once the lock is free.
n0=$(ledger_lines)
(flock "$R/.megagit/local/lock" sleep 3) &
LP=$!
sleep 0.3
{ mcp_init; mcp_tool 1 search_skills '{"query":"my docker image is too large"}'; mcp_tool 4 record_verdict '{"name":"docker-slim","verdict":"HELPFUL","reason":"waited for the lock"}'; } | mcp_run "$R" >"$T/o5" 2>"$T/e5"
wait "$LP"
why=$(check_replies "$T/o5" 4 | tr '\n' ';')
[ "$(ledger_lines)" -gt "$n0" ] || why="$why the verdict is not in the ledger"
verdict mcp-eof-verdict-waiting-for-lock "$why"

# 6. Ids without methods, junk, and a session that goes on after them.
big=$(head -c 5000000 /dev/zero | tr '\0' a)
{ mcp_init
	echo '{"jsonrpc":"2.0","id":21}'
	echo '{"jsonrpc":"2.0","id":"s-22","params":{}}'
	echo '{"jsonrpc":"2.0","id":23,"method":null}'
	echo '{"jsonrpc":"2.0","id":24,"method":""}'
	echo '[]'; echo '{}'; printf 'x\0y\n'; echo "{\"a\":\"$big\"}"
	echo '{"jsonrpc":"1.0","id":25,"method":"tools/list"}'
	echo '{"jsonrpc":"2.0","id":{"o":1},"method":"tools/list"}'
	echo '{"jsonrpc":"2.0","method":"notifications/whatever"}'
	echo '{"jsonrpc":"2.0","id":26,"method":"tools/list"}'; } | mcp_run "$R" >"$T/o6" 2>"$T/e6"
why=$(check_replies "$T/o6" 21 '"s-22"' 23 24 25 26 | tr '\n' ';')
grep -q '"id":26,"result"' "$T/o6" || why="$why tools/list after the junk got no result"
verdict mcp-junk-and-id-without-method "$why"

# 7. A reason with control characters and bidi overrides: the commit and
# ledger hold none of them raw.
{ mcp_init; mcp_tool 1 search_skills '{"query":"my docker image is too large"}'; mcp_tool 5 record_verdict '{"name":"docker-slim","verdict":"HARMFUL","reason":"evil \u001b]0;pwned\u0007 \u202ereversed\u202c \u0000nul"}'; } | mcp_run "$R" >"$T/o7" 2>"$T/e7"
git -C "$R" log -1 --format=%B >"$T/msg7"
why=""
raw_ctl "$T/msg7" && why="raw control or bidi characters in the commit message"
raw_ctl "$R/.megagit/ledger/docker-slim.jsonl" && why="$why; raw control characters in the ledger"
raw_ctl "$T/o7" && why="$why; raw control characters on MCP stdout"
fsck_ok "$R" || why="$why; git fsck fails"
verdict mcp-reason-cleaned "${why#; }"

# 8. record_verdict of a skill never returned in the session: refused.
n0=$(ledger_lines)
{ mcp_init; mcp_tool 6 record_verdict '{"name":"webhook-signatures","verdict":"HARMFUL","reason":"never seen"}'; } | mcp_run "$R" >"$T/o8" 2>"$T/e8"
why=""
[ "$(ledger_lines)" = "$n0" ] || why="a verdict on a skill the session never saw was committed"
grep -q '"isError":true' "$T/o8" || why="$why; no tool error"
verdict mcp-verdict-unseen-skill-refused "${why#; }"

summary
