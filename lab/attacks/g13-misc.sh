#!/usr/bin/env bash
# g13-misc: the smaller findings of issue 38 (13 and "plus"): odd durations
# and settings, error text from hostile sources (control bytes, a NUL),
# .megagit as a file, private state under any umask, the project's own
# tests in a hostile HOME, a first success's weight, clone of a relative
# path, a hand-edited status, route against the hook in a folder named like
# a catalog word, doctor's --fix hint.
. "$(dirname "$0")/lib.sh"
export GOPATH GOCACHE GOMODCACHE GOENV GOFLAGS
GOPATH=$(go env GOPATH) GOCACHE=$(go env GOCACHE) GOMODCACHE=$(go env GOMODCACHE) GOENV=$(go env GOENV) GOFLAGS=$(go env GOFLAGS)

fresh_home
mkreg r >/dev/null
cd r

# 1. Negative and odd settings are refused naming the key.
why=""
for kv in 'lock: {timeout_ms: -1}' 'hook: {deadline_ms: -5}' 'network: {timeout_ms: -1}' 'route: {top_k: -3}' 'lock: {timeout_ms: 1e400}' 'hook: {deadline_ms: .nan}'; do
	cp .megagit/config.yaml "$T/cfg.bak"
	echo "$kv" >>.megagit/config.yaml
	mg route "docker image" >"$T/o" 2>&1
	rc=$?
	[ "$rc" = 5 ] && grep -q "$(echo "$kv" | sed 's/: {\([a-z_]*\).*/.\1/')" "$T/o" || why="$why; '$kv': exit $rc"
	cp "$T/cfg.bak" .megagit/config.yaml
done
for env in MEGAGIT_LOCK_TIMEOUT_MS=-1 MEGAGIT_NETWORK_TIMEOUT_MS=-1 MEGAGIT_HOOK_DEADLINE_MS=-1; do
	env "$env" megagit route "docker image" >/dev/null 2>&1
	rc=$?
	[ "$rc" = 5 ] || why="$why; $env: exit $rc"
done
verdict misc-negative-settings-refused "${why#; }"
why=""
for f in "doctor --offline --timeout -1s" "doctor --timeout -1s" "serve --idle -1ns"; do
	# shellcheck disable=SC2086
	tmo 8 mg $f >"$T/o" 2>&1
	rc=$?
	[ "$rc" = 2 ] || [ "$rc" = 5 ] || why="$why; '$f' exit $rc (want 2 or 5, as serve --idle -1s is)"
done
verdict misc-negative-flag-durations "${why#; }"

# 2. Error and status text of install from hostile sources: no raw control
# byte (ESC, BEL, NUL, C1, bidi) on the terminal, whether it comes from the
# source's files, its branch names, or the source argument itself (a URL
# pasted from a page can carry an escape sequence or a bidi override).
why=""
src="$T/src-esc"
mksource "$src" tool >/dev/null
esc=$(printf '\033]0;pwned\007\033[31m')
mkdir -p "$src/skills/tool$esc" && skill_md "tool$esc" "Evil $esc desc. Use when $esc." >"$src/skills/tool$esc/SKILL.md"
mkdir -p "$src/skills/bidi" && skill_md bidi "$(printf 'Bidi \342\200\256 reversed. Use when x.')" >"$src/skills/bidi/SKILL.md"
git -C "$src" add -A && git -C "$src" commit -qm esc && git -C "$src" branch "br$esc" 2>/dev/null
for args in "$src" "$src --all" "$src tool$esc" "$src --ref br$esc" "$src --ref $esc" "$src --path skills/tool$esc" "$src$esc" "$src$(printf '\342\200\256')x" "$src nosuch$esc" "$src bidi"; do
	# shellcheck disable=SC2086
	(tmo 30 mg skill install $args) >"$T/o" 2>&1
	(tmo 30 mg skill install $args --json) >"$T/oj" 2>&1
	raw_ctl "$T/o" && why="$why; raw control bytes in: skill install $(echo "$args" | cat -v | head -c 60)"
	raw_ctl "$T/oj" && why="$why; raw control bytes in --json of: skill install $(echo "$args" | cat -v | head -c 60)"
done
(mg skill list; mg audit; mg lint; mg doctor --offline; mg log) >"$T/o" 2>&1
raw_ctl "$T/o" && why="$why; raw control bytes in list/audit/lint/doctor/log"
verdict misc-install-errors-no-raw-control "${why#; }"
git checkout -q -- . 2>/dev/null; git clean -qfd skills 2>/dev/null

# 3. .megagit as a file: skill list and init agree.
d=$(mktemp -d "$T/mf-XXXX")
echo x >"$d/.megagit"
(cd "$d" && mg skill list) >"$T/o1" 2>&1
r1=$?
(cd "$d" && mg init .) >"$T/o2" 2>&1
r2=$?
why=""
[ "$r2" = 0 ] && why="init exit 0 over a .megagit file"
grep -q 'is a file' "$T/o1" && grep -q 'is a file' "$T/o2" || why="$why; they disagree: list: $(tail -1 "$T/o1" | head -c 100) / init: $(tail -1 "$T/o2" | head -c 100)"
[ -f "$d/.megagit" ] || why="$why; the file was replaced"
verdict misc-megagit-file-list-init-agree "${why#; }"

# 4. Private state under umask 000: decisions, sessions, hook.log, pending,
# journal, adopted.json, the user data folder: 0600 files, 0700 folders.
fresh_home
(umask 000
	mkreg r >/dev/null
	cd r
	mkdir -p .claude/skills/own && skill_md own "Own skill for docker builds. Use when the docker build needs own." >.claude/skills/own/SKILL.md
	hook_event "my docker image is too large" s1 "$PWD" | mg hook prompt --agent claude >/dev/null 2>&1
	echo '{"session_id":"s1","transcript_path":"/nonexistent","cwd":"'"$PWD"'"}' | mg hook stop --agent claude >/dev/null 2>&1
	MEGAGIT_HOOK_DEADLINE_MS=bad mg hook prompt --agent claude </dev/null >/dev/null 2>&1
	mg adopt --scope user >/dev/null 2>&1
	mg index >/dev/null 2>&1)
bad=$(find "$T/r/.megagit/local" "$XDG_DATA_HOME/megagit/user/.megagit/local" \( -type f -perm /077 -o -type d -perm /077 \) ! -name '*.sock' -printf '%m %P; ' 2>/dev/null | head -c 300)
for dd in "$XDG_DATA_HOME/megagit" "$XDG_DATA_HOME/megagit/user"; do
	[ "$(stat -c %a "$dd" 2>/dev/null)" = 700 ] || bad="$bad ${dd#$T/} is $(stat -c %a "$dd" 2>/dev/null);"
done
verdict misc-private-state-umask-000 "${bad:+world or group readable: $bad}"

# 5. The project's own tests (go test ./..., what scripts/test.sh runs after
# its npm step, left out here: it downloads) in a hostile HOME: megagit and
# megagit-hook on PATH, the agents' folders full of matching skills, a team registry in the
# user config, routing settings in the environment, umask 077, a far time
# zone. The tests keep to their own home and pass.
fresh_home
for dd in .claude/skills .agents/skills .codex/skills .gemini/skills; do
	for n in docker-slim flaky-tests webhook-signatures pdf-tables own-skill; do
		mkdir -p "$HOME/$dd/$n" && skill_md "$n" "User $n. Use when a docker image is too large, tests fail randomly in CI or a webhook signature fails." >"$HOME/$dd/$n/SKILL.md"
	done
done
mkreg "$HOME/team" >/dev/null
mkdir -p "$XDG_CONFIG_HOME/megagit" && printf 'team_registry: %s\nmodel:\n  onnxruntime: /nonexistent/lib.so\n' "$HOME/team" >"$XDG_CONFIG_HOME/megagit/config.yaml"
out=$(cd "$REPO_ROOT" && umask 077 && TZ=Pacific/Kiritimati MEGAGIT_ROUTE_TOP_K=1 MEGAGIT_HOOK_SHADOW=true MEGAGIT_ROUTE_FORMAT=compose \
	GIT_AUTHOR_NAME=Hostile MEGAGIT_TEAM_REGISTRY="$HOME/team" PATH="$ATK_BIN:$PATH" \
	tmo 600 nice go test -count=1 ./... 2>&1)
rc=$?
verdict misc-project-tests-in-hostile-home "$([ "$rc" = 0 ] || echo "go test exit $rc: packages: $(echo "$out" | grep -E '^FAIL\s' | awk '{print $2}' | tr '\n' ' ')tests: $(echo "$out" | grep -E '^--- FAIL' | awk '{print $3}' | sort -u | head -8 | tr '\n' ' ')")"

# 6. A first success never lowers the trajectory weight; nor does a first
# implicit +1 outcome (learning starts neutral).
fresh_home
mkreg r >/dev/null
cd r
mg verdict docker-slim HELPFUL --reason first >/dev/null 2>&1
w=$(mg skill show docker-slim --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin).get("trajectory_weight", "?"))')
verdict misc-first-success-weight "$(python3 -c 'import sys; w=sys.argv[1]; print("" if w != "?" and float(w) >= 1.0 else "trajectory_weight after a first HELPFUL: " + w)' "$w")"

# 7. megagit clone of relative paths stores them absolute.
fresh_home
mkshared team >/dev/null
why=""
for u in team.git ./team.git ../"$(basename "$T")"/team.git; do
	d="c-$(echo "$u" | tr -c 'a-z' '_')"
	mg clone "$u" "$d" >/dev/null 2>&1
	url=$(git -C "$d" config remote.origin.url 2>/dev/null)
	case $url in /* | file:///*) ;; *) why="$why; clone $u stored '$url'" ;; esac
	(cd "$d" && mg verdict docker-slim HELPFUL --reason r >/dev/null 2>&1 && cd sub 2>/dev/null; mg sync >/dev/null 2>&1) || why="$why; sync in the clone of $u fails"
done
verdict misc-clone-relative-url "${why#; }"

# 8. A hand edit of mega_meta.status on an archived skill does not route it.
fresh_home
mkreg r >/dev/null
cd r
for i in 1 2 3; do mg verdict docker-slim HARMFUL --reason "bad $i" --context "docker image large" >/dev/null 2>&1; done
sed -i 's/status: archived/status: active/; s/"status": "archived"/"status": "active"/' skills/docker-slim/SKILL.md
git commit -qam "hand edit"
why=""
mg route "my docker image is too large, shrink it" 2>/dev/null | grep -q '^- docker-slim' && why="route injects a hand-unarchived skill"
hook_event "my docker image is too large, shrink it" s1 "$PWD" | mg hook prompt --agent claude 2>/dev/null | grep -q '^- docker-slim' && why="$why; the hook injects it"
hook_event "my docker image is too large, shrink it" s2 "$PWD" | mgh prompt --agent claude 2>/dev/null | grep -q '^- docker-slim' && why="$why; megagit-hook injects it"
mg doctor --offline 2>/dev/null | grep -qE $'^(fail|warn)\tevidence' || why="$why; doctor evidence check ok"
verdict misc-hand-edited-status "${why#; }"

# 9. route and the hook agree in a project folder named like a catalog word.
fresh_home
why=""
for folder in docker flaky webhook signatures tests; do
	mkreg "$T/$folder" >/dev/null
	cd "$T/$folder"
	for p in "my docker image is too large" "tests fail randomly" "what is a good name for a dog" "fix it" "signature"; do
		a=$(mg route "$p" 2>/dev/null | grep '^- ' | cut -d: -f1 | sort)
		b=$(hook_event "$p" "s$RANDOM" "$PWD" | mg hook prompt --agent claude 2>/dev/null | grep '^- ' | cut -d: -f1 | sort)
		c=$(hook_event "$p" "s$RANDOM" "$PWD" | mgh prompt --agent claude 2>/dev/null | grep '^- ' | cut -d: -f1 | sort)
		[ "$a" = "$b" ] && [ "$b" = "$c" ] || why="$why; in $folder/, '$p': route [$(echo $a)] hook [$(echo $b)] megagit-hook [$(echo $c)]"
	done
done
verdict misc-route-equals-hook-in-catalog-word-folder "${why#; }"

# 10. doctor names --fix only for failed checks it repairs (a broken hook
# entry alone: no --fix in its last line).
fresh_home
mkreg r >/dev/null
cd r
mg hook install >/dev/null 2>&1
sed -i 's#megagit hook stop#/nonexistent/megagit hook stop#' .claude/settings.json
out=$(mg doctor --offline 2>&1)
why=""
echo "$out" | grep -q $'^fail\thooks' || why="no failed hooks check for a missing binary"
echo "$out" | tail -1 | grep -q -- '--fix' && why="$why; last line suggests --fix: $(echo "$out" | tail -1 | head -c 120)"
verdict misc-doctor-fix-hint "${why#; }"

summary
