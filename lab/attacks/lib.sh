# lib.sh: shared helpers of the attack groups. Sourced, never run.
#
# Every group runs in a hermetic HOME (HOME and XDG_* under one temp folder,
# a git identity in that HOME's .gitconfig), talks only to loopback servers
# and bare repositories on disk, and prints one line per attack:
#   HELD name
#   BROKEN name: what happened
# ATK_BIN names the folder holding megagit and megagit-hook (run.sh builds
# them); a group run on its own builds them there when they are missing.

set -u
ATK_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$ATK_DIR/../.." && pwd)
: "${ATK_BIN:=/tmp/megagit-attacks-bin}"
if [ ! -x "$ATK_BIN/megagit" ] || [ ! -x "$ATK_BIN/megagit-hook" ]; then
	mkdir -p "$ATK_BIN"
	(cd "$REPO_ROOT" && CGO_ENABLED=1 nice go build -o "$ATK_BIN/" ./cmd/...) || { echo "BROKEN build: go build failed"; exit 1; }
fi
export PATH="$ATK_BIN:/usr/bin:/bin:/usr/local/bin:$PATH"
GIT_CORE=$(git --exec-path)

# One temp folder per group; removed at exit unless ATK_KEEP is set.
ATK_TMP=$(mktemp -d /tmp/megagit-attack-XXXXXX)
cleanup_tmp() {
	local p
	for p in $(jobs -p); do kill "$p" 2>/dev/null; done
	[ -n "${ATK_KEEP:-}" ] || rm -rf "$ATK_TMP"
}
trap cleanup_tmp EXIT

# fresh_home: a new hermetic HOME under ATK_TMP; cd there. T is its folder.
fresh_home() {
	T=$(mktemp -d "$ATK_TMP/h-XXXX")
	export HOME="$T/home"
	export XDG_CONFIG_HOME="$HOME/.config" XDG_DATA_HOME="$HOME/.local/share" \
		XDG_CACHE_HOME="$HOME/.cache" XDG_STATE_HOME="$HOME/.local/state" XDG_RUNTIME_DIR="$T/run"
	mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
	chmod 700 "$XDG_RUNTIME_DIR"
	unset GIT_DIR GIT_WORK_TREE GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM SSH_AUTH_SOCK \
		MEGAGIT_GIT_TOKEN MEGAGIT_GIT_USERNAME MEGAGIT_ONNXRUNTIME_LIB MEGAGIT_MODEL_DIR \
		MEGAGIT_TEAM_REGISTRY MEGAGIT_USER_REGISTRY MEGAGIT_NETWORK_TIMEOUT_MS \
		GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL \
		HTTP_PROXY HTTPS_PROXY ALL_PROXY http_proxy https_proxy all_proxy 2>/dev/null
	export GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0 NO_COLOR=1
	cat >"$HOME/.gitconfig" <<-G
	[user]
		name = Attacker Lab
		email = lab@example.invalid
	[init]
		defaultBranch = main
	[protocol "file"]
		allow = always
	[advice]
		detachedHead = false
	G
	export MEGA_CANARY="$T/canary-hit"
	cd "$T"
}

HELD_N=0
BROKEN_N=0
held() { echo "HELD $1"; HELD_N=$((HELD_N + 1)); }
broken() { echo "BROKEN $1: $2"; BROKEN_N=$((BROKEN_N + 1)); }
# verdict NAME WHY: HELD when WHY is empty, else BROKEN with WHY.
verdict() { if [ -z "$2" ]; then held "$1"; else broken "$1" "$2"; fi; }

# mg and mgh are programs (not functions), so timeout and xargs run them.
mkdir -p "$ATK_TMP/bin"
printf '#!/bin/sh\nexec nice -n 5 "%s/megagit" "$@"\n' "$ATK_BIN" >"$ATK_TMP/bin/mg"
printf '#!/bin/sh\nexec nice -n 5 "%s/megagit-hook" "$@"\n' "$ATK_BIN" >"$ATK_TMP/bin/mgh"
chmod +x "$ATK_TMP/bin/mg" "$ATK_TMP/bin/mgh"
export PATH="$ATK_TMP/bin:$PATH"
# tmo SECS CMD...: the command, killed after SECS; rc 124 on timeout.
tmo() { local s=$1; shift; timeout -k 2 "$s" "$@"; }
# one_line FILE: the first line of a file, shortened for a report.
one_line() { head -c 300 "$1" 2>/dev/null | tr '\n\t' '  '; }

# skill_md NAME DESCRIPTION [BODY]: a SKILL.md on stdout.
skill_md() {
	printf -- '---\nname: %s\ndescription: %s\n---\n# %s\n\n%s\n' "$1" "$2" "$1" "${3:-Steps for the task.}"
}

DESC_DOCKER="Shrink Docker images with multi-stage builds. Use when a Dockerfile produces large images or slow container builds."
DESC_FLAKY="Find why tests pass locally but fail randomly in CI: ordering, shared state, time. Use when a test is flaky or fails intermittently."
DESC_WEBHOOK="Verify HMAC signatures of incoming webhooks (Stripe, GitHub). Use when validating webhook payloads."

# mkreg DIR: a branch-layout registry with three skills.
mkreg() {
	mg init "$1" >/dev/null 2>&1 || return 1
	(cd "$1" &&
		mg skill add docker-slim --description "$DESC_DOCKER" &&
		mg skill add flaky-tests --description "$DESC_FLAKY" &&
		mg skill add webhook-signatures --description "$DESC_WEBHOOK") >/dev/null 2>&1
}

# mkshared NAME: NAME.git (bare) and NAME-a (a registry pushing to it).
mkshared() {
	git init -q --bare "$1.git"
	mkreg "$1-a" || return 1
	(cd "$1-a" && mg remote add origin "file://$PWD/../$1.git" && mg sync) >/dev/null 2>&1
}

# mksource DIR NAME...: a git repository holding skills/NAME/SKILL.md each.
mksource() {
	local d=$1 n
	shift
	mkdir -p "$d"
	git -C "$d" init -q
	for n in "$@"; do
		mkdir -p "$d/skills/$n"
		skill_md "$n" "Handle $n tasks for the team. Use when working on $n problems in the build." >"$d/skills/$n/SKILL.md"
	done
	git -C "$d" add -A && git -C "$d" commit -qm "skills" || return 1
}

# canary_so FILE: a shared library whose constructor appends a line to
# $MEGA_CANARY when any process loads it.
canary_so() {
	cat >"$ATK_TMP/canary.c" <<-'C'
	#include <stdio.h>
	#include <stdlib.h>
	__attribute__((constructor)) static void hit(void) {
		const char *p = getenv("MEGA_CANARY");
		if (!p) p = "/tmp/megagit-canary-hit";
		FILE *f = fopen(p, "a");
		if (f) { fprintf(f, "loaded\n"); fclose(f); }
	}
	C
	[ -f "$ATK_TMP/canary.so" ] || gcc -shared -fPIC -o "$ATK_TMP/canary.so" "$ATK_TMP/canary.c" || return 1
	cp "$ATK_TMP/canary.so" "$1"
}
# fake_onnx DIR: a folder that passes as an ONNX model folder up to the
# point where the runtime library is loaded.
fake_onnx() { mkdir -p "$1" && echo garbage >"$1/model.onnx" && echo '{}' >"$1/tokenizer.json"; }
canary_hit() { [ -s "$MEGA_CANARY" ]; }

# Loopback servers (python3): a git smart-HTTP server over git
# http-backend, and a server that accepts and never answers.
# start_http ROOT [AUTH user:pass] -> sets HTTP_PORT, HTTP_PID, HTTP_LOG
start_http() {
	HTTP_LOG=$(mktemp "$ATK_TMP/http-XXXX.log")
	python3 "$ATK_DIR/httpgit.py" "$1" "${2:-}" >"$HTTP_LOG.port" 2>"$HTTP_LOG" &
	HTTP_PID=$!
	local i
	for i in $(seq 1 100); do
		[ -s "$HTTP_LOG.port" ] && break
		sleep 0.05
	done
	HTTP_PORT=$(cat "$HTTP_LOG.port")
}
# start_stall MODE -> STALL_PORT, STALL_PID; MODE: silent | http-headers | git-banner | trickle
start_stall() {
	local f
	f=$(mktemp "$ATK_TMP/stall-XXXX")
	python3 "$ATK_DIR/stall.py" "$1" >"$f" 2>/dev/null &
	STALL_PID=$!
	local i
	for i in $(seq 1 100); do
		[ -s "$f" ] && break
		sleep 0.05
	done
	STALL_PORT=$(cat "$f")
}
stop_pid() { [ -n "${1:-}" ] && kill "$1" 2>/dev/null; wait "$1" 2>/dev/null; true; }

# fsck_ok DIR: git fsck --strict finds nothing in DIR's repository.
fsck_ok() { git -C "$1" fsck --strict --no-progress >/dev/null 2>&1; }

# raw_ctl FILE: FILE holds a raw control byte (ESC, BEL, NUL, C1 in UTF-8) or bidi override.
raw_ctl() { LC_ALL=C grep -qP '[\x00\x07\x1b]|\xc2[\x80-\x9f]|\xe2\x80[\xae\xab\xaa\xac\xad]|\xe2\x81[\xa6-\xa9]' "$1"; }

summary() { echo "# $(basename "$0"): $HELD_N held, $BROKEN_N broken"; }

# MCP lines: mcp_init, then tool calls; mcp_run DIR < lines.
mcp_init() {
	echo '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"lab","version":"1"}}}'
	echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
}
# mcp_tool ID NAME ARGS-JSON
mcp_tool() { printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' "$1" "$2" "$3"; }
mcp_run() { (cd "$1" && tmo 60 megagit mcp); }

# hook_event PROMPT [SESSION] [CWD]: a UserPromptSubmit event.
hook_event() {
	python3 -c 'import json,sys; print(json.dumps({"session_id": sys.argv[2], "hook_event_name": "UserPromptSubmit", "cwd": sys.argv[3], "prompt": sys.argv[1]}))' "$1" "${2:-s1}" "${3:-$PWD}" 2>/dev/null
}

# probe_load DIR: which of megagit's routing entry points, run in DIR,
# loaded the canary library; "" when none did.
probe_load() {
	local d=$1 hit=""
	rm -f "$MEGA_CANARY"
	(cd "$d" && tmo 30 mg route "my docker image is too large, shrink it" >/dev/null 2>&1)
	canary_hit && hit="$hit route"
	rm -f "$MEGA_CANARY"
	(cd "$d" && hook_event "my docker image is too large, shrink it" s1 "$d" | tmo 30 mg hook prompt --agent claude >/dev/null 2>&1)
	canary_hit && hit="$hit hook-prompt"
	rm -f "$MEGA_CANARY"
	(cd "$d" && hook_event "my docker image is too large, shrink it" s2 "$d" | tmo 30 mgh prompt --agent claude >/dev/null 2>&1)
	canary_hit && hit="$hit megagit-hook"
	rm -f "$MEGA_CANARY"
	{ mcp_init; mcp_tool 1 search_skills '{"query":"my docker image is too large"}'; } | mcp_run "$d" >/dev/null 2>&1
	canary_hit && hit="$hit mcp"
	rm -f "$MEGA_CANARY"
	(cd "$d" && tmo 30 mg index >/dev/null 2>&1)
	canary_hit && hit="$hit index"
	rm -f "$MEGA_CANARY"
	echo "$hit"
}

# evil_helper DIR: skills/helper in DIR carrying the canary (as lib.so)
# and a fake ONNX model folder (m/).
evil_helper() {
	mkdir -p "$1/skills/helper"
	skill_md helper "Help with the docker build. Use when the build needs a helper library." >"$1/skills/helper/SKILL.md"
	canary_so "$1/skills/helper/lib.so"
	fake_onnx "$1/skills/helper/m"
}

# in_bg FILE CMD...: run an attack in the background, its report lines in
# FILE; replay FILE... counts them in this shell once they are done.
BG_PIDS=""
in_bg() { local f=$1; shift; ("$@" >"$f" 2>/dev/null) & BG_PIDS="$BG_PIDS $!"; }
wait_bg() { local p; for p in $BG_PIDS; do wait "$p"; done; BG_PIDS=""; }
replay() {
	local f line
	for f in "$@"; do
		while IFS= read -r line; do
			case $line in
			"HELD "*) held "${line#HELD }" ;;
			"BROKEN "*) line=${line#BROKEN }; broken "${line%%: *}" "${line#*: }" ;;
			esac
		done <"$f"
	done
}
