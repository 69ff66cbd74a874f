#!/usr/bin/env bash
# g05-serve: `megagit serve` on its unix socket (issue 38 findings 5 and
# 13): file descriptors run out (ulimit -n 300, 400 idle connections); the
# connection cap and eviction (a client still served while silent
# connections pile up, reconnecting as fast as they are evicted); junk and
# oversized request lines; slow trickling clients; many clients at once;
# --idle 1ns, negative and odd durations; idle time counted from requests.
. "$(dirname "$0")/lib.sh"

fresh_home
mkreg r >/dev/null
cd r
mg index >/dev/null 2>&1
SOCK=$T/r/.megagit/local/serve.sock

# start_serve [LIMIT] ARGS: serve in the background (SERVE_PID, SERVE_LOG).
start_serve() {
	local lim=$1
	shift
	SERVE_LOG=$(mktemp "$T/serve-XXXX.log")
	sh -c "$lim exec nice -n 5 megagit serve \"\$@\"" sh "$@" 2>"$SERVE_LOG" &
	SERVE_PID=$!
	local i
	for i in $(seq 1 100); do
		[ -S "$SOCK" ] && break
		sleep 0.05
	done
	sleep 0.2
}
# served PROMPT: the prompt hook answered through the server (decision log).
served() {
	hook_event "$1" "s$RANDOM" "$T/r" | tmo 10 megagit-hook prompt --agent claude >"$T/hook.out" 2>/dev/null
	tail -1 .megagit/local/decisions.jsonl 2>/dev/null | grep -q '"served":true'
}
# hold N SECONDS [MODE]: N connections to the socket held open for SECONDS:
# silent and re-opened when closed (default), "once" (silent, never
# re-opened) or "trickle" (one byte a second, never a newline).
hold() {
	python3 - "$SOCK" "$@" <<-'P' &
	import socket, sys, time, threading
	path, n, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
	mode = sys.argv[4] if len(sys.argv) > 4 else "again"
	trickle = mode == "trickle"
	end = time.time() + secs
	def one():
	    while time.time() < end:
	        try:
	            s = socket.socket(socket.AF_UNIX); s.connect(path)
	            while time.time() < end:
	                if trickle:
	                    s.send(b"{"); time.sleep(1)
	                else:
	                    s.settimeout(1)
	                    try:
	                        if s.recv(1) == b"": break
	                    except socket.timeout: pass
	            s.close()
	            if mode == "once":
	                time.sleep(max(0, end - time.time()))
	        except OSError:
	            time.sleep(0.01)
	ts = [threading.Thread(target=one, daemon=True) for _ in range(n)]
	[t.start() for t in ts]
	while time.time() < end: time.sleep(0.2)
	P
	HOLD_PID=$!
}

# 1. Out of file descriptors: 400 idle connections under ulimit -n 300.
start_serve "ulimit -n 300 &&"
hold 400 8
sleep 2
why=""
served "my docker image is too large, shrink it" || why="hook not served while 400 idle connections are held"
grep -q '^- docker-slim' "$T/hook.out" || why="$why; the hook printed no docker-slim"
kill -0 "$SERVE_PID" 2>/dev/null || why="$why; serve died: $(tail -2 "$SERVE_LOG" | tr '\n' ' ')"
stop_pid "$HOLD_PID"
sleep 0.5
served "my docker image is too large" || why="$why; not served after the connections closed"
kill -0 "$SERVE_PID" 2>/dev/null || why="$why; serve died after the flood"
verdict serve-fd-exhaustion "${why#; }"

# 2. Eviction: 100 silent connections that stay (more than the cap of 64);
# a real client asks 10 times: each is served, the oldest silent evicted.
hold 100 8 once
sleep 1.5
miss=0
for i in $(seq 1 10); do served "flaky test fails randomly in ci" || miss=$((miss + 1)); done
stop_pid "$HOLD_PID"
kill -0 "$SERVE_PID" 2>/dev/null || miss="$miss (serve died)"
verdict serve-eviction-silent-pile "$([ "$miss" = 0 ] || echo "$miss of 10 prompts not served while 100 silent connections were held")"

# Churn: 200 silent clients reconnecting as fast as they are evicted; the
# hook must still answer every prompt (served or in-process) and serve live.
hold 200 6
sleep 1
miss=0
for i in $(seq 1 5); do
	served "flaky test fails randomly in ci"
	grep -q '^- flaky-tests' "$T/hook.out" || grep -q 'flaky-tests' "$T/hook.out" || miss=$((miss + 1))
done
stop_pid "$HOLD_PID"
kill -0 "$SERVE_PID" 2>/dev/null || miss="$miss (serve died)"
verdict serve-eviction-churn-answers "$([ "$miss" = 0 ] || echo "$miss of 5 prompts got no answer at all while silent connections churned")"

# 3. Slow trickling clients (a byte a second, never a newline): 100 of them.
hold 100 9 trickle
sleep 1
why=""
served "stripe webhook signature mismatch" || why="not served while 100 clients trickle"
sleep 6 # past requestWait: the tricklers are cut off
served "stripe webhook signature mismatch" || why="$why; not served after 7 s of trickling"
stop_pid "$HOLD_PID"
kill -0 "$SERVE_PID" 2>/dev/null || why="$why; serve died"
verdict serve-trickling-clients "${why#; }"

# 4. Junk: garbage lines, an 8 MiB line, a NUL flood, a half-closed socket.
python3 - "$SOCK" <<-'P' 2>/dev/null
	import socket, sys
	for payload in [b"garbage\n", b"{}\n", b'{"proto":1,"prompt":"x"}\n', b"\x00" * 100000, b"{" + b"a" * (8 << 20) + b"\n", b"[1,2,3]\n"]:
	    try:
	        s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(10)
	        s.sendall(payload); s.shutdown(socket.SHUT_WR)
	        while s.recv(65536): pass
	        s.close()
	    except OSError:
	        pass
	P
why=""
kill -0 "$SERVE_PID" 2>/dev/null || why="serve died on junk: $(tail -2 "$SERVE_LOG" | tr '\n' ' ')"
served "my docker image is too large" || why="$why; not served after junk"
verdict serve-junk-requests "${why#; }"

# 5. 6 prompt hooks at once through the server: each exits 0 in time and
# prints the skill or nothing (never a partial or a foreign answer).
for i in $(seq 1 6); do
	(hook_event "my docker image is too large, shrink it" "p$i" "$T/r" | tmo 10 megagit-hook prompt --agent claude >"$T/par.$i" 2>/dev/null; echo $? >"$T/par.$i.rc") &
done
wait_for=0
while [ "$(ls "$T"/par.*.rc 2>/dev/null | wc -l)" -lt 6 ] && [ $wait_for -lt 150 ]; do sleep 0.1; wait_for=$((wait_for + 1)); done
bad=""
for i in $(seq 1 6); do
	[ "$(cat "$T/par.$i.rc" 2>/dev/null)" = 0 ] || bad="$bad p$i:exit=$(cat "$T/par.$i.rc" 2>/dev/null)"
	[ ! -s "$T/par.$i" ] || grep -q '^- docker-slim' "$T/par.$i" || bad="$bad p$i:odd-output"
done
verdict serve-parallel-hooks "${bad:+parallel hooks:$bad}"
stop_pid "$SERVE_PID"

# 6. Durations: --idle 1ns exits; negative and junk are refused.
why=""
tmo 10 mg serve --idle 1ns >/dev/null 2>&1
rc=$?
[ "$rc" = 124 ] && why="serve --idle 1ns still running after 10 s"
for bad_d in -1s -1ns 1x "" 9999999999999999h; do
	tmo 5 mg serve --idle "$bad_d" >/dev/null 2>&1
	rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 124 ] && [ "$bad_d" != "" ] && why="$why; serve --idle '$bad_d' exit $rc"
done
verdict serve-idle-durations "${why#; }"

# 7. --idle counts requests, not connections: a client that connects every
# 0.3 s and never sends a request must not keep serve alive.
start_serve "" --idle 1s
python3 - "$SOCK" <<-'P' &
	import socket, sys, time
	end = time.time() + 6
	while time.time() < end:
	    try:
	        s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.close()
	    except OSError:
	        pass
	    time.sleep(0.3)
	P
PP=$!
sleep 4
why=""
kill -0 "$SERVE_PID" 2>/dev/null && why="serve --idle 1s still running after 4 s without a request (silent connections reset its idle clock)"
stop_pid "$PP"
stop_pid "$SERVE_PID"
verdict serve-idle-silent-connections "$why"

summary
