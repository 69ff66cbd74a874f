#!/usr/bin/env bash
# What the agent's own skill listing costs against megagit's injection, on
# a real catalog, measured with the real Claude Code (docs/adopt.md, "What
# it saves").
#
#   lab/scripts/adopt-tokens.sh SKILLS QUERIES [SPLIT]
#
# SKILLS is a folder of skill folders (each with a SKILL.md), put in a
# hermetic ~/.claude/skills; QUERIES a JSONL file of {"query": ..., "split":
# ...} lines, of which those of SPLIT (default: test) are the prompts.
# megagit's user-scope hook is installed (megagit hook install --scope user)
# and Claude Code (the version scripts/e2e-agents.sh pins, from its npm
# cache) runs one headless prompt against the mock model server before and
# after `megagit adopt --scope user`; what its request carries as its own
# skill listing is measured each time. megagit's injection is measured on
# every prompt of SPLIT, each in a session of its own (so each pays the
# once-a-session report request too). Tokens are bytes / 4, as megagit
# counts them (route.budget). The table goes to stdout.
set -euo pipefail
[ $# -ge 2 ] || { sed -n 2,18p "$0" >&2; exit 2; }
skills=$(cd "$1" && pwd)
queries=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
split=${3:-test}
cd "$(dirname "$0")/../.."
repo=$(pwd)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/megagit-e2e/npm
[ -x "$cache/node_modules/.bin/claude" ] || { echo "no Claude Code in $cache: run scripts/e2e-agents.sh once" >&2; exit 2; }
work=$(mktemp -d)
trap 'kill $(cat "$work/mock.pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$work"' EXIT

mkdir -p "$work/bin"
go build -o "$work/bin/" ./cmd/megagit ./cmd/megagit-hook ./internal/e2e/mockmodel
export PATH="$work/bin:$cache/node_modules/.bin:$PATH"
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share" XDG_CACHE_HOME="$work/home/.cache"
mkdir -p "$HOME/.claude/skills" "$work/plain"
git config --global user.name "Lab" && git config --global user.email lab@example.com
export DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1
cp -r "$skills"/. "$HOME/.claude/skills/"
n=$(find "$HOME/.claude/skills" -mindepth 2 -maxdepth 2 -name SKILL.md | wc -l)

mockmodel -log "$work/requests.jsonl" -port-file "$work/port" &
echo $! >"$work/mock.pid"
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")

cd "$work/plain"
megagit hook install --scope user >/dev/null 2>&1
user=$XDG_DATA_HOME/megagit/user

# listing_bytes: the size of Claude Code's own skill listing in the
# request of one headless prompt ("The following skills are available for
# use with the Skill tool:", a blank line, and its entries up to the next
# blank line); Claude Code's own skills (/init and the like) stay in it.
listing_bytes() {
  : >"$work/requests.jsonl"
  ANTHROPIC_BASE_URL="http://127.0.0.1:$port" ANTHROPIC_API_KEY=sk-lab \
    timeout 180 claude -p "hello" >/dev/null 2>&1 || true
  python3 - "$work/requests.jsonl" <<'PY'
import json, sys
head = "The following skills are available for use with the Skill tool:"
def texts(v):
    if isinstance(v, str): yield v
    elif isinstance(v, dict):
        for x in v.values(): yield from texts(x)
    elif isinstance(v, list):
        for x in v: yield from texts(x)
best = 0
for line in open(sys.argv[1]):
    for t in texts(json.loads(line)):
        i = t.find(head)
        if i >= 0:
            body = t[i + len(head):].lstrip("\n").split("\n\n", 1)[0]
            best = max(best, len((head + "\n\n" + body).encode()))
print(best)
PY
}
before=$(listing_bytes)
megagit adopt --scope user >"$work/adopt.out" 2>&1 || { cat "$work/adopt.out" >&2; exit 1; }
after=$(listing_bytes)

# megagit's injection, one session per prompt of the split.
python3 - "$queries" "$split" "$work/plain" >"$work/prompts.jsonl" <<'PY'
import json, sys
for i, line in enumerate(open(sys.argv[1])):
    q = json.loads(line)
    if q.get("split", sys.argv[2]) == sys.argv[2]:
        print(json.dumps({"session_id": "lab-%d" % i, "cwd": sys.argv[3], "prompt": q["query"], "hook_event_name": "UserPromptSubmit"}))
PY
megagit -C "$user" index >/dev/null 2>&1
: >"$work/inject.txt"
while IFS= read -r ev; do
  printf '%s' "$ev" | megagit-hook prompt --agent claude --user-registry "$user" | wc -c >>"$work/inject.txt"
done <"$work/prompts.jsonl"
start=$(printf '{"session_id":"lab-start","cwd":"%s","hook_event_name":"SessionStart","source":"startup"}' "$work/plain" |
  megagit-hook session-start --agent claude --user-registry "$user" | wc -c)
read -r prompts injected none < <(awk '{s += $1; if ($1 == 0) z++} END {print NR, s, z + 0}' "$work/inject.txt")

cd "$repo"
tok() { echo $((($1 + 3) / 4)); }
echo "| $n real skills in ~/.claude/skills, Claude Code $(claude --version 2>/dev/null | cut -d' ' -f1) | bytes | tokens |"
echo "|---|---:|---:|"
echo "| Claude Code's own listing, every prompt, before adopt | $before | $(tok "$before") |"
echo "| the same after \`megagit adopt --scope user\` | $after | $(tok "$after") |"
echo "| megagit's injection, mean of $prompts prompts ($none with none) | $((injected / prompts)) | $(tok $((injected / prompts))) |"
echo "| megagit's report request, once a session | $start | $(tok "$start") |"
