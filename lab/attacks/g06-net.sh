#!/usr/bin/env bash
# g06-net: no network operation hangs (issue 38 finding 6): skill install,
# skill update, skill update --check, sync, clone and doctor against a
# server that accepts and never answers (http, git://, ssh), one that sends
# HTTP headers and stops, one that sends half a pkt-line; a credential
# helper that hangs or leaves a child holding its pipe; a server that
# streams an endless ref advertisement (memory must stay bounded).
. "$(dirname "$0")/lib.sh"

fresh_home
export MEGAGIT_NETWORK_TIMEOUT_MS=2000
# ssh: a key of ours, and a known_hosts naming loopback (any port), so the
# client gets as far as the server's silence.
mkdir -p "$HOME/.ssh" && ssh-keygen -q -t ed25519 -N '' -f "$HOME/.ssh/id_ed25519" >/dev/null 2>&1
ssh-keygen -q -t ed25519 -N '' -f "$T/hostkey" >/dev/null 2>&1
known_for() { echo "[127.0.0.1]:$1 $(cut -d' ' -f1,2 "$T/hostkey.pub")" >>"$HOME/.ssh/known_hosts"; }
LIMIT=20 # seconds any one command may take (timeout 2 s, plus slack)

# net_case NAME URL: every networked command against URL ends, exit 12,
# within LIMIT seconds, naming the URL's host.
net_case() {
	local name=$1 url=$2 why="" d
	d=$(mktemp -d "$T/net-XXXX")
	mkreg "$d/r" >/dev/null
	(cd "$d/r" && mg remote add origin "$url") >/dev/null 2>&1
	# a lock entry whose source is URL, for update
	(cd "$d/r" && python3 - "$url" <<-'P'
	import json, sys
	json.dump({"version": 1, "skills": {"docker-slim": {"source": sys.argv[1], "commit": "1" * 40, "commit_time": "2026-01-01T00:00:00Z", "path": "skills/docker-slim", "files": {}}}}, open(".megagit/skills.lock", "w"), indent=2)
	P
	git add -A && git commit -qm lock) >/dev/null 2>&1
	local c s e rc
	for c in "skill install $url x" "skill update" "skill update --check" "sync" "clone $url c2" "doctor --timeout 3s"; do
		s=$(date +%s)
		(cd "$d/r" && tmo 30 mg $c) >"$d/out" 2>&1
		rc=$?
		e=$(($(date +%s) - s))
		if [ "$c" = "doctor --timeout 3s" ]; then
			# doctor has its own --timeout: a warning within it (plus slack)
			local dwhy=""
			[ "$rc" = 124 ] && dwhy="doctor --timeout 3s still waiting for the remote after 30 s"
			[ "$rc" != 124 ] && [ "$e" -gt 10 ] && dwhy="doctor --timeout 3s took ${e}s"
			[ "$rc" != 124 ] && ! grep -qiE $'^(warn|fail)\tremote' "$d/out" && dwhy="$dwhy; no remote warning"
			verdict "net-doctor-$name" "${dwhy#; }"
		elif [ "$rc" = 124 ]; then
			why="$why; '$c' hung (killed after 30 s)"
		elif [ "$e" -gt "$LIMIT" ]; then
			why="$why; '$c' took ${e}s"
		elif [ "$rc" != 12 ]; then
			why="$why; '$c' exit $rc (want 12): $(grep error "$d/out" | head -1 | head -c 160)"
		fi
	done
	verdict "net-$name" "${why#; }"
}

# The six servers at once (each case waits on timeouts, not the CPU).
start_stall silent
P_SILENT=$STALL_PORT
known_for "$P_SILENT"
start_stall http-headers
P_HEAD=$STALL_PORT
start_stall git-banner
P_BANNER=$STALL_PORT
start_stall ssh-banner
P_SSHB=$STALL_PORT
known_for "$P_SSHB"
in_bg "$T/r1" net_case http-silent "http://127.0.0.1:$P_SILENT/r.git"
in_bg "$T/r2" net_case git-silent "git://127.0.0.1:$P_SILENT/r.git"
in_bg "$T/r3" net_case ssh-silent "ssh://git@127.0.0.1:$P_SILENT/r.git"
in_bg "$T/r4" net_case http-headers-then-nothing "http://127.0.0.1:$P_HEAD/r.git"
in_bg "$T/r5" net_case git-half-pktline "git://127.0.0.1:$P_BANNER/r.git"
in_bg "$T/r6" net_case ssh-banner-then-nothing "ssh://git@127.0.0.1:$P_SSHB/r.git"
wait_bg
replay "$T"/r[1-6]

# The committed config cannot switch the timeout off: 0 and negative
# values are refused, naming the key, rather than meaning "wait for ever".
start_stall silent
why=""
for where in committed local; do
	for v in 0 -5; do
		d=$(mktemp -d "$T/cfg-XXXX")
		mkreg "$d/r" >/dev/null
		git -C "$d/r" remote add origin "http://127.0.0.1:$STALL_PORT/r.git"
		if [ $where = committed ]; then
			printf 'network:\n  timeout_ms: %s\n' "$v" >>"$d/r/.megagit/config.yaml" && git -C "$d/r" commit -qam t
		else
			mkdir -p "$d/r/.megagit/local" && printf 'network:\n  timeout_ms: %s\n' "$v" >"$d/r/.megagit/local/config.yaml"
		fi
		(unset MEGAGIT_NETWORK_TIMEOUT_MS; cd "$d/r" && tmo 20 mg sync) >"$d/out" 2>&1
		rc=$?
		[ "$rc" = 5 ] && grep -q 'network.timeout_ms' "$d/out" || why="$why; $where timeout_ms $v: sync exit $rc"
	done
done
verdict net-timeout-config-zero-negative "${why#; }"
stop_pid "$STALL_PID"

# Credential helpers that hang: sleep, and a child that keeps the pipe.
mkdir -p srv
mksource work/src pdf-tables >/dev/null
git clone -q --bare work/src srv/src.git
start_http "$T/srv"
for helper in '!sleep 300' '!f() { (sleep 300 &); (setsid sleep 300 &); echo username=u; echo password=p; }; f'; do
	d=$(mktemp -d "$T/helper-XXXX")
	mkreg "$d/r" >/dev/null
	git -C "$d/r" config credential.helper "$helper"
	s=$(date +%s)
	(cd "$d/r" && tmo 60 mg skill install "http://127.0.0.1:$HTTP_PORT/src.git" pdf-tables) >"$d/out" 2>&1
	rc=$?
	e=$(($(date +%s) - s))
	why=""
	[ "$rc" = 124 ] && why="install hung with credential.helper '$helper'"
	[ "$e" -gt 25 ] && why="$why; took ${e}s"
	verdict "net-credential-helper-$(echo "$helper" | head -c 12 | tr -c 'a-z0-9' '-')" "${why#; }"
done
stop_pid "$HTTP_PID"

# An endless ref advertisement: the command must end (an error, a cap),
# not grow without bound. Watched for 20 s; more than 300 MiB of RSS, or
# still running at the end, is broken.
for mode in git-refs http-refs; do
	start_stall "$mode"
	case $mode in git-refs) url="git://127.0.0.1:$STALL_PORT/r.git" ;; http-refs) url="http://127.0.0.1:$STALL_PORT/r.git" ;; esac
	d=$(mktemp -d "$T/refs-XXXX")
	mkreg "$d/r" >/dev/null
	(cd "$d/r" && exec megagit skill install "$url" x) >"$d/out" 2>&1 &
	MP=$!
	peak=0
	for i in $(seq 1 20); do
		kill -0 "$MP" 2>/dev/null || break
		rss=$(ps -o rss= -p "$MP" 2>/dev/null | tr -d ' ')
		[ -n "$rss" ] && [ "$rss" -gt "$peak" ] && peak=$rss
		[ "$peak" -gt 307200 ] && break
		sleep 1
	done
	why=""
	if kill -0 "$MP" 2>/dev/null; then
		why="skill install still reading an endless ref advertisement after ${i}s, RSS $((peak / 1024)) MiB and growing"
		kill -9 "$MP" 2>/dev/null
	fi
	wait "$MP" 2>/dev/null
	verdict "net-endless-ref-advertisement-$mode" "$why"
	stop_pid "$STALL_PID"
done

summary
