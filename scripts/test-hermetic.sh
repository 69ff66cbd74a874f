#!/usr/bin/env bash
# The test command (scripts/test.sh) on a machine where megagit is in use:
# a throwaway home holding what a real user's does (skills in every agent's
# folder, a user registry, a team registry named in the user config, git
# settings, megagit's hooks and MCP server in the agents' settings) and a
# megagit and a megagit-hook on PATH that fail loudly when run; and megagit
# settings in the environment (MEGAGIT_ROUTE_TOP_K=1 and others) and umask
# 077, as a user's shell may have. Every test runs in a home, PATH,
# environment and umask of its own, so none of it may change a result;
# a test that runs the PATH's megagit or megagit-hook fails the run.
#
#   scripts/test-hermetic.sh [COMMAND [ARGS...]]   (default: scripts/test.sh, the README's test command)
#
# Go's own folders (modules, build cache, `go env -w` settings) and the
# ONNX Runtime library scripts/test.sh would fetch stay where they are.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
start=$(date +%s)

export GOPATH GOCACHE GOMODCACHE GOENV
GOPATH=$(go env GOPATH) GOCACHE=$(go env GOCACHE) GOMODCACHE=$(go env GOMODCACHE) GOENV=$(go env GOENV)
if [ -z "${MEGAGIT_ONNXRUNTIME_LIB:-}" ] && command -v npm >/dev/null 2>&1; then
  MEGAGIT_ONNXRUNTIME_LIB=$(scripts/install-onnxruntime.sh)
  export MEGAGIT_ONNXRUNTIME_LIB
fi
# A pyenv shim on PATH finds its Pythons through PYENV_ROOT (~/.pyenv).
if [ -z "${PYENV_ROOT:-}" ] && [ -d "$HOME/.pyenv" ]; then
  export PYENV_ROOT=$HOME/.pyenv
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/megagit-hermetic-XXXXXX")
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
home=$tmp/home ran=$tmp/ran
mkdir -p "$home" "$tmp/bin" "$tmp/tools"
go build -o "$tmp/tools/megagit" ./cmd/megagit

# The PATH's megagit and megagit-hook: each run is written down and fails.
for b in megagit megagit-hook; do
  cat >"$tmp/bin/$b" <<EOF
#!/bin/sh
echo "test-hermetic: a test ran the megagit on PATH: \$0 \$*" >&2
echo "\$0 \$*" >>"$ran"
exit 97
EOF
  chmod +x "$tmp/bin/$b"
done

# skill DIR NAME: a skill whose words match the tests' prompts, under the
# names the tests' own skills use, so a test that reads it ranks it.
skill() {
  mkdir -p "$1/$2"
  cat >"$1/$2/SKILL.md" <<EOF
---
name: $2
description: Users' own $2 skill. Use when tests fail randomly in CI, a docker image is too large, a webhook signature or a postgres migration needs checking.
---

# $2

Flaky tests, docker images, webhooks, migrations, git, python, pytest.
EOF
}
for d in .claude/skills .codex/skills .gemini/skills .agents/skills; do
  for n in flaky-tests docker-slim pg-migrations users-own-skill; do skill "$home/$d" "$n"; done
done

# The user registry, and a team registry the user config names.
M() {
  env -u XDG_CONFIG_HOME -u XDG_DATA_HOME HOME="$home" PATH="$tmp/bin:$PATH" "$tmp/tools/megagit" "$@" >/dev/null 2>&1
}
cat >"$home/.gitconfig" <<EOF
[user]
	name = A Real User
	email = real-user@example.com
[init]
	defaultBranch = trunk
EOF
for r in "$home/.local/share/megagit/user" "$home/team"; do
  M init "$r"
  for n in flaky-tests docker-slim webhook-signer; do
    M -C "$r" skill add "$n" --description "Registry's $n. Use when tests fail randomly in CI, a docker image is too large or a webhook signature fails."
  done
done
mkdir -p "$home/.config/megagit"
echo "team_registry: $home/team" >"$home/.config/megagit/config.yaml"

# megagit's hooks and MCP server, installed as the README says.
for a in claude codex gemini; do
  M -C "$home/team" hook install --scope user --agent "$a" --mcp --command megagit --hook-command megagit-hook
done
# git settings a test must never pick up: a commit would need a signature.
cat >>"$home/.gitconfig" <<EOF
[commit]
	gpgSign = true
[gpg]
	program = $tmp/bin/megagit
EOF

# megagit settings in the environment, each one a test would notice, and a
# umask that makes files private: a user's shell may have both.
hostile=(
  MEGAGIT_ROUTE_TOP_K=1
  MEGAGIT_ROUTE_FORMAT=compose
  MEGAGIT_HOOK_SHADOW=true
  MEGAGIT_HOOK_DEADLINE_MS=1
  MEGAGIT_TEAM_REGISTRY=/nonexistent
  MEGAGIT_USER_REGISTRY=/nonexistent
  MEGA_EVAL_BLEND=false
  GIT_AUTHOR_NAME=Hostile
  TZ=Pacific/Kiritimati
)

[ $# -gt 0 ] || set -- scripts/test.sh
echo "test-hermetic: home set up in $(( $(date +%s) - start ))s; running $* in $home with megagit and megagit-hook on PATH that fail, ${hostile[*]} and umask 077" >&2
status=0
(
  umask 077
  env -u XDG_CONFIG_HOME -u XDG_DATA_HOME -u XDG_CACHE_HOME -u XDG_STATE_HOME \
    HOME="$home" PATH="$tmp/bin:$PATH" "${hostile[@]}" "$@"
) || status=$?
if [ -s "$ran" ]; then
  echo "test-hermetic: tests ran the megagit or megagit-hook on PATH:" >&2
  sort "$ran" | uniq -c >&2
  status=1
fi
for d in .claude/skills .codex/skills .gemini/skills .agents/skills; do
  n=$(find "$home/$d" -name SKILL.md | wc -l)
  if [ "$n" -ne 4 ]; then echo "test-hermetic: $d changed: $n skills, want 4" >&2; status=1; fi
done
echo "test-hermetic: $(( $(date +%s) - start ))s, exit $status" >&2
exit $status
