#!/usr/bin/env bash
# g07-localstate: what a teammate commits under .megagit/local/ never
# reaches a clone's local state (issue 38 finding 7), and no path a remote
# names writes outside the registry's files: decision log, config, a fake
# journal (which the next command would replay), sessions; .megagit/local
# as a file or a gitlink; case variants (the same folder on a
# case-insensitive file system: macOS, Windows); tree entries plain git
# refuses (.git, .GIT, ..), pushed with git's plumbing, by sync, clone and
# skill install.
. "$(dirname "$0")/lib.sh"
GRAFT="python3 $ATK_DIR/graft.py"

# setup: team.git, team-a (teammate), b (a clone with local state).
setup() {
	fresh_home
	mkshared team >/dev/null
	mg clone "file://$T/team.git" b >/dev/null 2>&1
	(cd b && mg verdict docker-slim HELPFUL --reason mine >/dev/null 2>&1 && mg sync >/dev/null 2>&1 &&
		hook_event "my docker image is too large" s1 "$T/b" | mg hook prompt --agent claude >/dev/null 2>&1)
	(cd team-a && git pull -q origin main) >/dev/null 2>&1
	LOCAL_BEFORE=$(cd b/.megagit/local && find . -type f ! -name 'route-index*' ! -name lock ! -name sync.lock -exec sha256sum {} + | sort)
	GITCFG_BEFORE=$(sha256sum b/.git/config)
}
# push_graft MSG SPEC...: the teammate's commit, built with plumbing, pushed.
push_graft() {
	local msg=$1
	shift
	$GRAFT team-a "$msg" "$@" >/dev/null && git -C team-a push -q -f origin HEAD:main 2>/dev/null
}
# after_sync NAME: sync in b must refuse (non-zero), change no local
# state, write nothing outside, keep .git/config.
after_sync() {
	local name=$1 why="" rc
	(cd b && tmo 60 mg sync) >"$T/sync.out" 2>&1
	rc=$?
	[ "$rc" = 0 ] && why="sync exit 0: $(tail -1 "$T/sync.out" | head -c 200)"
	local now
	now=$(cd b/.megagit/local 2>/dev/null && find . -type f ! -name 'route-index*' ! -name lock ! -name sync.lock -exec sha256sum {} + | sort)
	[ "$now" = "$LOCAL_BEFORE" ] || why="$why; local state changed: $(diff <(echo "$LOCAL_BEFORE") <(echo "$now") | grep '^[<>]' | head -3 | tr '\n' ' ')"
	[ "$(sha256sum b/.git/config)" = "$GITCFG_BEFORE" ] || why="$why; .git/config changed"
	[ -e "$T/outside-pwn" ] || [ -e "$T/b/../outside-pwn" ] && why="$why; a file was written outside the registry"
	ls b/.git/hooks 2>/dev/null | grep -vq '\.sample$' && why="$why; a hook was written into .git/hooks"
	[ -n "${EXTRA_CHECK:-}" ] && why="$why$(eval "$EXTRA_CHECK")"
	verdict "$name" "${why#; }"
}

for f in decisions.jsonl config.yaml journal.json sessions/s1.json hook-settings.json pending/s1.json; do
	setup
	case $f in
	journal.json) content='{"version":1,"op":"commit","files":[{"path":"skills/docker-slim/SKILL.md","content":"pwned"}]}' ;;
	config.yaml) content='model:\n  onnxruntime: /tmp/x.so\n' ;;
	*) content='{"pwned":true}\n' ;;
	esac
	push_graft "local $f" ".megagit/local/$f=$content"
	after_sync "sync-refuses-local-$(echo "$f" | tr '/.' '--')"
done

# Adds one local file among ordinary changes: still refused whole.
setup
push_graft "mixed" "skills/docker-slim/notes.md=ok\n" ".megagit/local/decisions.jsonl={}\n"
EXTRA_CHECK='[ -e b/skills/docker-slim/notes.md ] && echo "; the rest of the commit was applied"' after_sync sync-refuses-local-mixed-commit

# .megagit/local as a file, and as a gitlink.
setup
push_graft "local file" ".megagit/local=not a folder\n"
after_sync sync-local-as-file
setup
push_graft "local gitlink" "160000:.megagit/local=$(git -C team-a rev-parse HEAD)"
after_sync sync-local-as-gitlink

# Case variants: on a case-insensitive file system (macOS's and Windows'
# defaults) each of these is .megagit/local/..., which megagit then reads as
# this machine's own (git tracks the other spelling). One attack, three
# spellings.
written=""
for p in .megagit/LOCAL/config.yaml .megagit/Local/decisions.jsonl .MEGAGIT/local/config.yaml; do
	setup
	push_graft "case $p" "$p=model:\n  onnxruntime: /tmp/x.so\n"
	(cd b && tmo 60 mg sync) >/dev/null 2>&1
	[ -e "b/$p" ] && written="$written $p"
done
verdict sync-local-case-variants "${written:+sync (exit 0) wrote$written: on a case-insensitive file system each is under .megagit/local/}"

# Paths plain git refuses: a nested .git, .GIT, a .git file, .., the top .git.
for spec in 'skills/docker-slim/.git/config=[core]\n\tfsmonitor = echo pwned\n' \
	'skills/docker-slim/.GIT/config=[core]\n\tfsmonitor = echo pwned\n' \
	'skills/docker-slim/.git=gitdir: ../../.git\n' \
	'.git/hooks/post-checkout=#!/bin/sh\necho pwned\n' \
	'skills/../../outside-pwn=pwned\n' \
	'skills/docker-slim/../../../outside-pwn=pwned\n'; do
	setup
	push_graft "path" "$spec"
	p=${spec%%=*}
	EXTRA_CHECK="[ -e \"b/$p\" ] && echo \"; sync wrote $p\"" after_sync "sync-refuses-path-$(echo "$p" | tr '/.' '--' | head -c 40)"
done

# megagit clone of such remotes: refused, and the clone removed.
for spec in '.megagit/local/config.yaml=model:\n  onnxruntime: /tmp/x.so\n' \
	'.megagit/LOCAL/config.yaml=x\n' \
	'skills/docker-slim/.git/config=[core]\n' \
	'skills/../../outside-pwn=pwned\n'; do
	setup
	push_graft "clone path" "$spec"
	p=${spec%%=*}
	(tmo 60 mg clone "file://$T/team.git" c) >"$T/clone.out" 2>&1
	rc=$?
	why=""
	case $p in
	*LOCAL*) [ -e "c/$p" ] && why="clone kept $p (on a case-insensitive file system: .megagit/local)" ;;
	*) [ "$rc" = 0 ] && why="clone exit 0"
		[ -e "c/$p" ] && why="$why; $p written" ;;
	esac
	[ -e "$T/outside-pwn" ] && why="$why; a file was written outside the clone"
	verdict "clone-refuses-$(echo "$p" | tr '/.' '--' | head -c 40)" "${why#; }"
done

# skill install from a source whose tree holds such paths.
fresh_home
mkreg r >/dev/null
for spec in 'skills/tool/.git/config=[core]\n' 'skills/tool/.GIT/config=[core]\n' 'skills/tool/../../outside-pwn=x\n' 'skills/tool/.megagit/local/config.yaml=x\n'; do
	src=$(mktemp -d "$T/src-XXXX")
	mksource "$src" tool >/dev/null
	$GRAFT "$src" evil "$spec" >/dev/null
	(cd r && tmo 60 mg skill install "$src" tool) >"$T/inst.out" 2>&1
	rc=$?
	p=${spec%%=*}
	why=""
	[ "$rc" = 0 ] && why="install exit 0"
	[ -e "r/$p" ] && why="$why; $p written"
	[ -e "$T/outside-pwn" ] && why="$why; a file written outside the registry"
	grep -q 'tool' "$T/inst.out" || why="$why; the error names neither source nor skill: $(tail -1 "$T/inst.out" | head -c 120)"
	verdict "install-refuses-path-$(echo "$p" | tr '/.' '--' | head -c 40)" "${why#; }"
	rm -rf r/skills/tool
done

summary
