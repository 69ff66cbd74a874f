#!/usr/bin/env bash
# End-to-end tests against the real agents, run headless against a mock
# model server on 127.0.0.1 (internal/e2e/mockmodel): megagit's hooks and
# MCP server installed with `megagit hook install`, each agent asked a few
# prompts, and what reached the model (the mock's request log) and what the
# registry recorded checked. docs/development.md, "The real agents".
#
#   scripts/e2e-agents.sh            # installs the pinned agents with npm (cached)
#
# Where npm cannot be reached it says so and skips (exit 0).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

CLAUDE_CODE_VERSION=2.1.332
GEMINI_CLI_VERSION=0.61.0
CODEX_VERSION=0.171.0
OPENCODE_VERSION=1.18.33
COPILOT_VERSION=1.0.102
cache=${XDG_CACHE_HOME:-$HOME/.cache}/megagit-e2e/npm
work=$(mktemp -d)
trap 'kill $(cat "$work/mock.pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$work"' EXIT

say() { printf 'e2e: %s\n' "$*"; }
fails=0
pass() { say "PASS $*"; }
fail() {
  say "FAIL $*"; fails=$((fails + 1))
  say "--- last requests:"; tail -c 2000 "$work/requests.jsonl" 2>/dev/null | cut -c1-2000; echo
  say "--- hook.log:"; tail -20 "$work/proj/.megagit/local/hook.log" 2>/dev/null || true
}

# Without npm's registry there is nothing to test against: say so, fast.
if ! command -v npm >/dev/null 2>&1 || ! timeout 20 npm ping >/dev/null 2>&1; then
  say "SKIPPED: npm's registry cannot be reached (npm ping failed)"
  exit 0
fi

# The agents, pinned, installed once into the cache.
if [ "$("$cache/node_modules/.bin/claude" --version 2>/dev/null | cut -d' ' -f1)" != "$CLAUDE_CODE_VERSION" ] ||
  [ "$("$cache/node_modules/.bin/gemini" --version 2>/dev/null)" != "$GEMINI_CLI_VERSION" ] ||
  [ "$("$cache/node_modules/.bin/codex" --version 2>/dev/null)" != "codex-cli $CODEX_VERSION" ] ||
  [ "$("$cache/node_modules/.bin/opencode" --version 2>/dev/null)" != "$OPENCODE_VERSION" ] ||
  [ "$("$cache/node_modules/.bin/copilot" --version 2>/dev/null | head -1)" != "GitHub Copilot CLI $COPILOT_VERSION." ]; then
  mkdir -p "$cache"
  if ! npm install --prefix "$cache" --no-audit --no-fund --loglevel=error \
    "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" "@google/gemini-cli@$GEMINI_CLI_VERSION" "@openai/codex@$CODEX_VERSION" \
    "opencode-ai@$OPENCODE_VERSION" "@github/copilot@$COPILOT_VERSION" >"$work/npm.log" 2>&1; then
    say "SKIPPED: npm could not install the agents (no registry?):"; tail -5 "$work/npm.log"
    exit 0
  fi
fi

# megagit, the hook binary and the mock, built from this checkout.
mkdir -p "$work/bin"
go build -o "$work/bin/" ./cmd/megagit ./cmd/megagit-hook ./internal/e2e/mockmodel
export PATH="$work/bin:$cache/node_modules/.bin:$PATH"

# A hermetic home with a git identity; agents' telemetry and updates off.
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share" XDG_CACHE_HOME="$work/home/.cache"
mkdir -p "$HOME"
git config --global user.name "E2E" && git config --global user.email e2e@example.com && git config --global init.defaultBranch main
export DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1
export OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_SHARE=1 COPILOT_AUTO_UPDATE=false

mockmodel -log "$work/requests.jsonl" -port-file "$work/port" &
echo $! >"$work/mock.pid"
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")

# The project: a registry with three skills, one of the project's own
# Claude Code skills, and megagit's hooks and MCP server for Claude Code.
mkdir -p "$work/proj" && cd "$work/proj" && git init -q
megagit init >/dev/null 2>&1
megagit skill add flaky-tests --description 'Find why tests pass locally but fail randomly in CI. Use when a test is flaky or fails intermittently.' >/dev/null 2>&1
megagit skill add docker-slim --description 'Shrink Docker images with multi-stage builds. Use when a Dockerfile produces large images.' >/dev/null 2>&1
megagit skill add webhook-signer --description 'Validate HMAC signatures of incoming webhooks. Use when verifying Stripe or GitHub webhook payloads.' >/dev/null 2>&1
mkdir -p .claude/skills/pdf-tables
printf -- '---\nname: pdf-tables\ndescription: Extract tables from PDF files into CSV. Use when a PDF holds tabular data.\n---\n\n# Steps\nUse pdfplumber.\n' >.claude/skills/pdf-tables/SKILL.md
mkdir -p .claude/skills/deploy-prod
printf -- '---\nname: deploy-prod\ndescription: Deploy the main branch to production. Use when shipping to production.\ndisable-model-invocation: true\n---\n\n# Deploy\nRun make deploy.\n' >.claude/skills/deploy-prod/SKILL.md
megagit hook install --agent claude --mcp >/dev/null 2>&1
megagit hook install --agent gemini --mcp >/dev/null 2>&1
megagit hook install --agent codex --mcp >/dev/null 2>&1
megagit hook install --agent opencode --mcp >/dev/null 2>&1
megagit hook install --agent copilot --mcp >/dev/null 2>&1
# Skills of the folders only opencode and Copilot CLI read.
mkdir -p .opencode/skills/k8s-rollout .github/skills/pg-index
printf -- '---\nname: k8s-rollout\ndescription: Roll out a Kubernetes deployment without downtime. Use when a kubectl rollout is stuck.\n---\n\n# Steps\nkubectl rollout status.\n' >.opencode/skills/k8s-rollout/SKILL.md
printf -- '---\nname: pg-index\ndescription: Add the right index to a slow Postgres query. Use when a SQL query is slow.\n---\n\n# Steps\nRun EXPLAIN ANALYZE.\n' >.github/skills/pg-index/SKILL.md
# opencode's provider: the mock, as an OpenAI-compatible one (user config,
# so the project's opencode.json holds only what megagit wrote).
mkdir -p "$XDG_CONFIG_HOME/opencode" && cat >"$XDG_CONFIG_HOME/opencode/opencode.json" <<JSON
{"\$schema": "https://opencode.ai/config.json", "model": "mock/mock-model",
 "provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "name": "Mock",
   "options": {"baseURL": "http://127.0.0.1:$port/v1", "apiKey": "e2e-test"}, "models": {"mock-model": {"name": "Mock"}}}}}
JSON
mkdir -p "$HOME/.codex" && cat >"$HOME/.codex/config.toml" <<TOML
model = "mock-model"
model_provider = "mock"

[model_providers.mock]
name = "mock"
base_url = "http://127.0.0.1:$port/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"

[projects."$work/proj"]
trust_level = "trusted"
TOML
mkdir -p "$HOME/.gemini" && printf '{"security": {"auth": {"selectedType": "gemini-api-key"}}}\n' >"$HOME/.gemini/settings.json"
printf '{"enableAllProjectMcpServers": true}\n' >.claude/settings.local.json
git add -A && git commit -qm "the project's files" # a skill with uncommitted edits takes no verdict

# claude PROMPT: one headless session; its requests are the mock's new lines.
claude_ask() {
  : >"$work/requests.jsonl"
  ANTHROPIC_BASE_URL="http://127.0.0.1:$port" ANTHROPIC_API_KEY=sk-e2e-test \
    timeout 120 claude -p "$1" >"$work/claude.out" 2>"$work/claude.err" || { say "claude exited $?"; cat "$work/claude.err" | tail -5; }
}
sent() { grep -q -- "$1" "$work/requests.jsonl"; }
# listed NAME: the agent's own skill listing (Claude Code's "The following
# skills are available for use with the Skill tool:") names the skill.
listed() { listing | grep -- "^- $1:" >/dev/null; }
# listing: Claude Code's own skill listings in the requests, as sent, each
# distinct one once.
listing() {
  python3 - "$work/requests.jsonl" <<'PY'
import json, sys
head = "The following skills are available for use with the Skill tool:"
def texts(v):
    if isinstance(v, str): yield v
    elif isinstance(v, dict):
        for x in v.values(): yield from texts(x)
    elif isinstance(v, list):
        for x in v: yield from texts(x)
seen = []
for line in open(sys.argv[1]):
    for t in texts(json.loads(line)):
        i = t.find(head)
        if i < 0:
            continue
        one = t[i + len(head):].lstrip("\n").split("\n\n", 1)[0]
        if one not in seen:
            seen.append(one)
print("\n\n".join(seen))
sys.exit(0 if seen else 1)
PY
}
verdicts() { git log --format=%s | grep -c '^verdict(' || true; }

# agent_checks AGENT ASK SKILL PROMPT TOOL...: what every agent must show.
# ASK runs one headless session; PROMPT should fetch SKILL, and the mock
# answers it with a HELPFUL tag for SKILL; each TOOL is a string of the
# request that names one of megagit's MCP tools.
agent_checks() {
  local agent=$1 ask=$2 skill=$3 prompt=$4 before after ok=1 t
  shift 4
  before=$(verdicts)
  "$ask" "$prompt [[tag $skill HELPFUL]]"
  sent 'in this session megagit may suggest skills' && pass "$agent: the session instruction reaches the model" || fail "$agent: no session instruction in the request"
  sent "skills that may help with this prompt\\\\n- $skill:" && pass "$agent: the prompt's skill reaches the model" || fail "$agent: $skill not injected"
  for t in "$@"; do sent "$t" || ok=0; done
  [ "$ok" = 1 ] && pass "$agent: megagit's MCP tools are in the request's tool list" || fail "$agent: no megagit MCP tool in the request"
  after=$(verdicts)
  [ "$((after - before))" -eq 1 ] && git log -1 --format=%s | grep -q "^verdict($skill): HELPFUL" \
    && pass "$agent: a <skill-used> tag made exactly one verdict commit" || fail "$agent: $((after - before)) verdict commit(s), want 1"
  "$ask" "hi there, how are you today?"
  ! sent 'skills that may help' && pass "$agent: small talk gets no skill" || fail "$agent: small talk got a skill"
}

say "Claude Code $(claude --version 2>/dev/null)"
agent_checks claude claude_ask flaky-tests "my go tests fail randomly on CI but pass locally" mcp__megagit__search_skills

# adopt: Claude Code's own listing no longer carries the project's skill
# (a skillOverrides setting, no file moved), megagit's injection does, and
# /pdf-tables still runs it; a user-only skill is neither listed, injected
# nor touched; restore brings the listing back byte for byte.
claude_ask "extract the tables from this pdf into csv"
listed pdf-tables && pass "claude: before adopt, Claude Code lists pdf-tables itself" || fail "claude: before adopt, pdf-tables is not in Claude Code's listing"
listing >"$work/listing-before.txt"
tree_sum() { find .claude/skills -type f -exec sha256sum {} + | sort; }
tree_sum >"$work/tree-before.txt"
megagit adopt >/dev/null 2>&1
tree_sum | cmp -s - "$work/tree-before.txt" && pass "claude: adopt moved and changed no skill file" || fail "claude: adopt changed a skill file"
grep -q '"pdf-tables": "user-invocable-only"' .claude/settings.local.json && pass "claude: adopt writes skillOverrides in .claude/settings.local.json" || fail "claude: no skillOverrides written"
claude_ask "extract the tables from this pdf into csv"
! listed pdf-tables && sent 'skills that may help with this prompt\\n- pdf-tables:' \
  && pass "claude: after adopt, Claude Code's listing drops pdf-tables and megagit injects it" || fail "claude: after adopt"
claude_ask "/pdf-tables report.pdf"
sent 'Use pdfplumber.' && pass "claude: after adopt, /pdf-tables still expands the skill" || fail "claude: after adopt, /pdf-tables did not reach the model"
claude_ask "deploy the main branch to production now"
! listed deploy-prod && ! sent 'skills that may help with this prompt\\n- deploy-prod:' \
  && pass "claude: the user-only deploy-prod is neither listed nor injected" || fail "claude: deploy-prod was listed or injected"
# (the sessions since may have written megagit's evidence into a skill of
# the registry: what restore must not touch is compared from here)
tree_sum >"$work/tree-before.txt"
megagit adopt --restore >/dev/null 2>&1
tree_sum | cmp -s - "$work/tree-before.txt" && pass "claude: restore moved and changed no skill file" || fail "claude: restore changed a skill file"
claude_ask "extract the tables from this pdf into csv"
listing | cmp -s - "$work/listing-before.txt" && pass "claude: adopt --restore brings Claude Code's listing back byte for byte" || fail "claude: the listing after restore differs"
[ ! -e .claude/settings.local.json ] || ! grep -q skillOverrides .claude/settings.local.json && pass "claude: restore takes the setting back" || fail "claude: restore left skillOverrides"

# Gemini CLI: the same, through its generateContent API.
gemini_ask() {
  : >"$work/requests.jsonl"
  GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$port" GEMINI_API_KEY=e2e-test GEMINI_CLI_TRUST_WORKSPACE=true \
    timeout 120 gemini --approval-mode yolo -p "$1" >"$work/gemini.out" 2>"$work/gemini.err" || { say "gemini exited $?"; grep -v '^    at ' "$work/gemini.err" | tail -5; }
}
say "Gemini CLI $(gemini --version 2>/dev/null)"
agent_checks gemini gemini_ask docker-slim "my docker image is huge, shrink it" mcp_megagit_search_skills

# adopt: Gemini CLI's own listing (its <skill> entries and activate_skill's
# names) drops a skill of .agents/skills once skills.disabled names it;
# megagit injects it; restore lists it again.
gemini_listed() { grep -qF "name\\u003e$1\\u003c/name" "$work/requests.jsonl"; }
mkdir -p .agents/skills/csv-report
printf -- '---\nname: csv-report\ndescription: Summarise a CSV file into a markdown report. Use when a CSV needs a report.\n---\n\n# Steps\nRead the CSV with pandas.\n' >.agents/skills/csv-report/SKILL.md
gemini_ask "summarise data.csv into a report"
gemini_listed csv-report && pass "gemini: before adopt, Gemini CLI lists csv-report itself" || fail "gemini: before adopt, csv-report is not in Gemini CLI's listing"
megagit adopt --agent gemini >/dev/null 2>&1
gemini_ask "summarise data.csv into a report"
! gemini_listed csv-report && sent 'skills that may help with this prompt\\n- csv-report:' \
  && pass "gemini: after adopt, Gemini CLI's listing drops csv-report and megagit injects it" || fail "gemini: after adopt"
megagit adopt --restore --agent gemini >/dev/null 2>&1
gemini_ask "summarise data.csv into a report"
gemini_listed csv-report && pass "gemini: adopt --restore lists csv-report again" || fail "gemini: restore"

# Codex: the same, through the OpenAI Responses API; its project hooks run
# once trusted (--dangerously-bypass-hook-trust is Codex's switch for
# automation).
codex_ask() {
  : >"$work/requests.jsonl"
  MOCK_API_KEY=e2e-test timeout 120 codex exec --dangerously-bypass-hook-trust "$1" >"$work/codex.out" 2>&1 ||
    { say "codex exited $?"; tail -5 "$work/codex.out"; }
}
say "Codex $(codex --version 2>/dev/null)"
agent_checks codex codex_ask flaky-tests "my go tests fail randomly on CI but pass locally" '"name":"mcp__megagit"' '"name":"search_skills"'

# adopt: Codex 0.171.0's one per-skill switch is [[skills.config]] path =
# SKILL.md, enabled = false in ~/.codex/config.toml. It drops the skill
# from Codex's own listing (the "### Available skills" of its skills
# instructions), and from the user's $NAME too, so adopt writes it only
# with --codex-disable. What keeps $NAME, allow_implicit_invocation:
# false, is in the skill's own agents/openai.yaml, which adopt never
# writes: such a skill is left alone, and $NAME still expands it. Restore
# brings the config file and the listing back byte for byte.
# codex_listing: Codex's own skill listings in the requests, as sent, each
# distinct one once.
codex_listing() {
  python3 - "$work/requests.jsonl" <<'PY'
import json, sys
head = "### Available skills\n"
def texts(v):
    if isinstance(v, str): yield v
    elif isinstance(v, dict):
        for x in v.values(): yield from texts(x)
    elif isinstance(v, list):
        for x in v: yield from texts(x)
seen = []
for line in open(sys.argv[1]):
    for t in texts(json.loads(line)):
        i = t.find(head)
        if i < 0:
            continue
        one = t[i + len(head):].split("</skills_instructions>", 1)[0]
        if one not in seen:
            seen.append(one)
print("\n\n".join(seen))
sys.exit(0 if seen else 1)
PY
}
# (grep reads it all: one that quits at the first match would break
# python's pipe, which pipefail counts as a failure)
codex_listed() { codex_listing | grep -- "^- $1:" >/dev/null; }
mkdir -p .agents/skills/release-cut/agents
printf -- '---\nname: release-cut\ndescription: Cut a release tag and write the changelog. Use when releasing.\n---\n\n# Release\nTag the release with git tag.\n' >.agents/skills/release-cut/SKILL.md
printf 'policy:\n  allow_implicit_invocation: false\n' >.agents/skills/release-cut/agents/openai.yaml
codex_ask "summarise data.csv into a report"
codex_listed csv-report && pass "codex: before adopt, Codex lists csv-report itself" || fail "codex: before adopt, csv-report is not in Codex's listing"
codex_listing >"$work/codex-listing-before.txt"
codex_listing >/dev/null && ! codex_listed release-cut && pass "codex: Codex itself keeps release-cut (allow_implicit_invocation: false) out of its listing" || fail "codex: release-cut is listed"
cp "$HOME/.codex/config.toml" "$work/codex-config-before.toml"
codex_ask 'use $release-cut for v1.2'
sent 'Tag the release with git tag.' && pass "codex: \$release-cut expands the user-only skill" || fail "codex: \$release-cut did not reach the model"
megagit adopt --agent codex >"$work/adopt.out" 2>&1
grep -q 'left csv-report .*Codex has no per-skill setting that keeps your \$NAME' "$work/adopt.out" && cmp -s "$HOME/.codex/config.toml" "$work/codex-config-before.toml" \
  && pass "codex: without --codex-disable, adopt leaves Codex's listing and says why" || { cat "$work/adopt.out"; fail "codex: adopt without --codex-disable"; }
megagit adopt --agent codex --codex-disable >"$work/adopt.out" 2>&1
grep -q "^path = '.*/.agents/skills/csv-report/SKILL.md'\$" "$HOME/.codex/config.toml" && ! grep -q release-cut "$HOME/.codex/config.toml" \
  && pass "codex: --codex-disable writes [[skills.config]] enabled = false for csv-report, none for release-cut" || { cat "$work/adopt.out" "$HOME/.codex/config.toml"; fail "codex: --codex-disable wrote no entry"; }
codex_ask "summarise data.csv into a report"
codex_listing >/dev/null && ! codex_listed csv-report && sent 'skills that may help with this prompt\\n- csv-report:' \
  && pass "codex: after adopt, Codex's listing drops csv-report and megagit injects it" || fail "codex: after adopt"
codex_ask 'use $csv-report on data.csv'
sent 'use $csv-report on data.csv' && ! sent 'Read the CSV with pandas.' && pass "codex: after --codex-disable, \$csv-report no longer expands the skill (why adopt asks for the flag)" || fail "codex: a disabled skill still expanded"
codex_ask 'use $release-cut for v1.2'
sent 'Tag the release with git tag.' && pass "codex: release-cut, left alone, still expands with \$release-cut" || fail "codex: \$release-cut after adopt"
megagit adopt --restore --agent codex >/dev/null 2>&1
cmp -s "$HOME/.codex/config.toml" "$work/codex-config-before.toml" && pass "codex: restore brings ~/.codex/config.toml back byte for byte" || fail "codex: ~/.codex/config.toml differs after restore"
codex_ask "summarise data.csv into a report"
codex_listing | cmp -s - "$work/codex-listing-before.txt" && pass "codex: adopt --restore brings Codex's listing back byte for byte" || fail "codex: the listing after restore differs"
codex_ask 'use $csv-report on data.csv'
sent 'Read the CSV with pandas.' && pass "codex: after restore, \$csv-report expands the skill again" || fail "codex: \$csv-report after restore"

# Personal skills, in a folder with no registry: the user-scope hooks name
# the user registry (created by the install), so Claude Code started there
# gets a personal skill injected; adopt --scope user, run from there too,
# takes it out of Claude Code's own listing; restore brings it back.
mkdir -p "$HOME/.claude/skills/csv-clean" "$work/plain"
printf -- '---\nname: csv-clean\ndescription: Clean messy CSV files, fix encodings, trim columns and drop duplicate rows. Use when a CSV file is messy.\n---\n\n# Steps\nUse csvkit.\n' >"$HOME/.claude/skills/csv-clean/SKILL.md"
cd "$work/plain"
megagit hook install --scope user >/dev/null 2>&1
grep -q -- '--user-registry' "$HOME/.claude/settings.json" && pass "claude: hook install --scope user outside a registry names the user registry" || fail "claude: the user-scope hooks name no registry"
claude_ask "this csv file is a mess: duplicate rows and broken encoding, clean it"
sent 'skills that may help with this prompt\\n- csv-clean:' && pass "claude: in a folder without a registry, the user-scope hook injects a personal skill" || fail "claude: no personal skill injected outside a registry"
listed csv-clean && pass "claude: before adopt --scope user, Claude Code lists csv-clean itself" || fail "claude: csv-clean not in Claude Code's own listing"
megagit adopt --scope user >/dev/null 2>&1
claude_ask "this csv file is a mess: duplicate rows and broken encoding, clean it"
! listed csv-clean && sent 'skills that may help with this prompt\\n- csv-clean:' \
  && pass "claude: after adopt --scope user (from a folder without a registry), the listing drops csv-clean and megagit injects it" || fail "claude: after adopt --scope user"
megagit adopt --restore --scope user >/dev/null 2>&1
claude_ask "hello"
listed csv-clean && pass "claude: adopt --restore --scope user lists csv-clean again" || fail "claude: restore --scope user"

# A Claude Code plugin's skills, installed from a local marketplace with
# Claude Code's own commands: Claude Code lists them and megagit routes
# them. Claude Code 2.1.332 reads no setting that takes a plugin's skill
# out of its listing (it ignores skillOverrides for it, under the
# qualified and the bare name), so adopt writes nothing for it, leaves the
# plugin's files alone and says why; /docs-kit:pdf-forms still expands the
# skill, and after restore the listing is byte for byte what it was. A
# plugin skill whose author keeps it from the model is neither listed nor
# injected.
market="$work/market"
mkdir -p "$market/.claude-plugin" "$market/docs-kit/.claude-plugin" "$market/docs-kit/skills/pdf-forms" "$market/docs-kit/skills/sign-pdf"
printf '{"name": "local-market", "owner": {"name": "E2E"}, "plugins": [{"name": "docs-kit", "source": "./docs-kit", "description": "Document helpers"}]}\n' >"$market/.claude-plugin/marketplace.json"
printf '{"name": "docs-kit", "version": "1.0.0", "description": "Document helpers"}\n' >"$market/docs-kit/.claude-plugin/plugin.json"
printf -- '---\nname: pdf-forms\ndescription: Fill in PDF forms from a data file. Use when a PDF form must be filled.\n---\n\n# Steps\nUse pdftk fill_form with the FDF file.\n' >"$market/docs-kit/skills/pdf-forms/SKILL.md"
printf -- '---\nname: sign-pdf\ndescription: Sign a PDF document with the certificate. Use when a PDF must be signed.\ndisable-model-invocation: true\n---\n\n# Sign\nRun pdfsig.\n' >"$market/docs-kit/skills/sign-pdf/SKILL.md"
if timeout 120 claude plugin marketplace add "$market" >"$work/plugin.out" 2>&1 && timeout 120 claude plugin install docs-kit@local-market >>"$work/plugin.out" 2>&1; then
  pass "claude: claude plugin install docs-kit@local-market (a local marketplace)"
else
  cat "$work/plugin.out"; fail "claude: the plugin did not install"
fi
# plugin_sum: every file of the plugin, as the marketplace and Claude
# Code's plugin folder hold it.
plugin_sum() { find "$market" "$HOME/.claude/plugins/cache" "$HOME/.claude/plugins/installed_plugins.json" -type f -exec sha256sum {} + | sort; }
pdf_forms="fill in the pdf form w2.pdf from data.json"
claude_ask "$pdf_forms"
listed docs-kit:pdf-forms && pass "claude: Claude Code lists the plugin's skill docs-kit:pdf-forms itself" || fail "claude: docs-kit:pdf-forms is not in Claude Code's listing"
sent 'skills that may help with this prompt\\n- docs-kit:pdf-forms:' && pass "claude: megagit injects the plugin's skill docs-kit:pdf-forms" || fail "claude: docs-kit:pdf-forms not injected"
listing >"$work/plugin-listing-before.txt"
claude_ask "sign this pdf document with the certificate"
listing >/dev/null && ! listed docs-kit:sign-pdf && ! sent 'skills that may help with this prompt\\n- docs-kit:sign-pdf:' \
  && pass "claude: the plugin's user-only docs-kit:sign-pdf is neither listed nor injected" || fail "claude: docs-kit:sign-pdf was listed or injected"
cp "$HOME/.claude/settings.json" "$work/user-settings-before.json"
plugin_sum >"$work/plugin-before.txt"
megagit adopt --scope user --except csv-clean >"$work/adopt.out" 2>&1
grep -q "left docs-kit:pdf-forms .*Claude Code has no setting that hides a plugin's skill" "$work/adopt.out" && grep -q 'left docs-kit:sign-pdf .*disable-model-invocation' "$work/adopt.out" \
  && cmp -s "$HOME/.claude/settings.json" "$work/user-settings-before.json" \
  && pass "claude: adopt leaves the plugin's skills, says why, and writes no setting" || { cat "$work/adopt.out"; fail "claude: adopt and the plugin's skills"; }
plugin_sum | cmp -s - "$work/plugin-before.txt" && pass "claude: adopt changed no file of the plugin" || fail "claude: adopt changed a file of the plugin"
claude_ask "$pdf_forms"
listing | cmp -s - "$work/plugin-listing-before.txt" && sent 'skills that may help with this prompt\\n- docs-kit:pdf-forms:' \
  && pass "claude: after adopt, Claude Code's listing is as it was and megagit injects docs-kit:pdf-forms" || fail "claude: the listing or the injection after adopt"
# Why adopt writes nothing: the setting that hides a folder's skill, by
# hand, under both names a plugin's skill could be keyed by.
python3 - "$HOME/.claude/settings.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s.setdefault("skillOverrides", {}).update({"docs-kit:pdf-forms": "user-invocable-only", "pdf-forms": "user-invocable-only"})
json.dump(s, open(sys.argv[1], "w"), indent=2)
PY
claude_ask "$pdf_forms"
listed docs-kit:pdf-forms && pass "claude: Claude Code ignores skillOverrides for a plugin's skill (qualified or bare name): why adopt writes none" \
  || fail "claude: Claude Code now hides a plugin's skill with skillOverrides: adopt should write it (workspace/adopt/plugin.go)"
cp "$work/user-settings-before.json" "$HOME/.claude/settings.json"
claude_ask "/docs-kit:pdf-forms w2.pdf"
sent 'Use pdftk fill_form with the FDF file.' && pass "claude: after adopt, /docs-kit:pdf-forms still expands the plugin's skill" || fail "claude: /docs-kit:pdf-forms did not reach the model"
plugin_sum >"$work/plugin-before.txt"
megagit adopt --restore --scope user >/dev/null 2>&1
cmp -s "$HOME/.claude/settings.json" "$work/user-settings-before.json" && plugin_sum | cmp -s - "$work/plugin-before.txt" \
  && pass "claude: restore leaves the settings file and the plugin's files byte for byte" || fail "claude: restore changed the settings or the plugin"
claude_ask "$pdf_forms"
listing | cmp -s - "$work/plugin-listing-before.txt" && pass "claude: after restore, Claude Code's listing with the plugin is byte for byte what it was" || fail "claude: the listing after restore differs"

# opencode: its plugin (.opencode/plugins/megagit.js) runs the hooks; the
# mock is an OpenAI-compatible provider (Chat Completions).
cd "$work/proj"
opencode_ask() {
  : >"$work/requests.jsonl"
  timeout 150 opencode run "$1" >"$work/opencode.out" 2>&1 || { say "opencode exited $?"; tail -5 "$work/opencode.out"; }
}
say "opencode $(opencode --version 2>/dev/null)"
agent_checks opencode opencode_ask flaky-tests "my go tests fail randomly on CI but pass locally" megagit_search_skills
opencode_ask "my kubectl rollout is stuck, roll out the deployment without downtime"
sent 'skills that may help with this prompt\\n- k8s-rollout:' && pass "opencode: a skill of .opencode/skills is routed" || fail "opencode: k8s-rollout not injected"

# GitHub Copilot CLI: its BYOK provider (COPILOT_PROVIDER_BASE_URL, Chat
# Completions) with COPILOT_OFFLINE, so no GitHub sign-in;
# COPILOT_ALLOW_ALL=true trusts the folder, which loads its .github/hooks
# and .github/mcp.json. The checks run in a project of its own (Copilot's
# hooks only); the first project, whose Claude Code hooks Copilot runs too,
# checks that a prompt is still injected once there.
copilot_ask() {
  : >"$work/requests.jsonl"
  COPILOT_OFFLINE=true COPILOT_PROVIDER_BASE_URL="http://127.0.0.1:$port/v1" COPILOT_PROVIDER_API_KEY=e2e-test COPILOT_MODEL=mock-model COPILOT_ALLOW_ALL=true \
    timeout 120 copilot -p "$1" --allow-all --disable-client-telemetry >"$work/copilot.out" 2>&1 || { say "copilot exited $?"; tail -5 "$work/copilot.out"; }
}
say "$(copilot --version 2>/dev/null | head -1)"
mkdir -p "$work/cproj" && cd "$work/cproj" && git init -q
megagit init >/dev/null 2>&1
megagit skill add docker-slim --description 'Shrink Docker images with multi-stage builds. Use when a Dockerfile produces large images.' >/dev/null 2>&1
megagit skill add flaky-tests --description 'Find why tests pass locally but fail randomly in CI. Use when a test is flaky or fails intermittently.' >/dev/null 2>&1
mkdir -p .github/skills/pg-index
printf -- '---\nname: pg-index\ndescription: Add the right index to a slow Postgres query. Use when a SQL query is slow.\n---\n\n# Steps\nRun EXPLAIN ANALYZE.\n' >.github/skills/pg-index/SKILL.md
megagit hook install --agent copilot --mcp >/dev/null 2>&1
git add -A && git commit -qm "the project's files"
agent_checks copilot copilot_ask docker-slim "my docker image is huge, shrink it" megagit-search_skills
copilot_ask "my postgres sql query is slow, which index should I add"
sent 'skills that may help with this prompt\\n- pg-index:' && pass "copilot: a skill of .github/skills is routed" || fail "copilot: pg-index not injected"
cd "$work/proj"
copilot_ask "my docker image is huge, shrink it"
[ "$(grep -o 'skills that may help with this prompt' "$work/requests.jsonl" | wc -l)" -eq 1 ] && pass "copilot: one injection per prompt beside the project's Claude Code hooks" || fail "copilot: injected $(grep -o 'skills that may help with this prompt' "$work/requests.jsonl" | wc -l) times beside Claude Code's hooks"

cd "$repo"
if [ "$fails" -gt 0 ]; then say "$fails check(s) failed"; exit 1; fi
say "all checks passed"
