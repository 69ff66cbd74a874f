package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/megagit/megagit/hook"
)

// opencodeDir is opencode's own config folder: $XDG_CONFIG_HOME/opencode
// (absolute), as opencode reads it, else ~/.config/opencode.
func opencodeDir(home string) string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "opencode")
	}
	return filepath.Join(home, ".config", "opencode")
}

// The opencode plugin's events (its own hook names), as Entry.Event.
const (
	opencodePrompt = "prompt"        // chat.message
	opencodeStart  = "session-start" // the first chat.message of a session
	opencodeStop   = "stop"          // experimental.text.complete
)

// opencodeEntries are the commands megagit's opencode plugin runs.
func opencodeEntries(prompt, start, stop string) []Entry {
	return []Entry{
		{Event: opencodeStart, Command: start, Timeout: 10},
		{Event: opencodePrompt, Command: prompt, Timeout: 10},
		{Event: opencodeStop, Command: stop, Timeout: 60},
	}
}

// opencodeHeader starts megagit's opencode plugin: a file that does not
// start with it is not megagit's, and install and uninstall leave it be.
const opencodeHeader = "// megagit's opencode plugin, written by `megagit hook install --agent opencode`"

// OpencodePlugin is megagit's opencode plugin running entries: opencode
// (1.18) loads every file of .opencode/plugins/ (and
// ~/.config/opencode/plugins/) at startup and awaits its hooks:
//   - chat.message (a user message, before the model sees it): the first
//     of a session runs the session-start hook, each runs the prompt hook
//     with the message's text; what they print is kept for the session;
//   - experimental.chat.system.transform (each model request of the
//     session): adds what they printed to the system prompt;
//   - experimental.text.complete (each finished text of the assistant):
//     runs the stop hook with that text as last_assistant_message, as
//     Codex's Stop event carries it.
//
// The events are sent in Codex's field names (session_id, cwd,
// hook_event_name, prompt), one JSON object on stdin, and every command
// runs with /bin/sh -c under its timeout; a failure adds nothing.
func OpencodePlugin(entries []Entry) []byte {
	type cmd struct {
		Event     string `json:"event"`
		Command   string `json:"command"`
		TimeoutMs int    `json:"timeout_ms"`
	}
	var cmds []cmd
	for _, e := range entries {
		cmds = append(cmds, cmd{e.Event, e.Command, e.Timeout * 1000})
	}
	js, _ := json.Marshal(map[string]any{"hooks": cmds})
	return []byte(strings.Replace(opencodePluginJS, "@COMMANDS@", string(js), 1))
}

// ownPlugin says whether data is megagit's opencode plugin.
func ownPlugin(data []byte) bool { return strings.HasPrefix(string(data), opencodeHeader) }

const opencodePluginJS = opencodeHeader + `;
// ` + "`megagit hook uninstall --agent opencode`" + ` removes it. Edits are lost on the next install.
// It runs megagit's hooks on opencode's events: the session-start and prompt
// hooks on a user message (what they print joins the system prompt of the
// session's requests), the stop hook on each finished text of the assistant.
import { spawn } from "node:child_process"

` + hook.PluginCommandsPrefix + `@COMMANDS@;

function run(event, input) {
  const h = megagit.hooks.find((h) => h.event === event)
  if (!h) return Promise.resolve("")
  return new Promise((resolve) => {
    let out = ""
    let done = false
    const finish = (ok) => {
      if (!done) {
        done = true
        resolve(ok ? out : "")
      }
    }
    let child
    try {
      child = spawn("/bin/sh", ["-c", h.command], { stdio: ["pipe", "pipe", "ignore"] })
    } catch {
      return resolve("")
    }
    const timer = setTimeout(() => {
      child.kill()
      finish(false)
    }, h.timeout_ms || 10000)
    child.stdout.on("data", (d) => (out += d))
    child.on("error", () => {
      clearTimeout(timer)
      finish(false)
    })
    child.on("close", () => {
      clearTimeout(timer)
      finish(true)
    })
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(input))
  })
}

export const MegagitPlugin = async ({ directory }) => {
  const sessions = new Map()
  return {
    "chat.message": async (input, output) => {
      const prompt = output.parts
        .filter((p) => p.type === "text" && !p.synthetic)
        .map((p) => p.text)
        .join("\n")
        .trim()
      if (!prompt || !input.sessionID) return
      const s = sessions.get(input.sessionID) ?? { start: null, prompt: "" }
      sessions.set(input.sessionID, s)
      const event = { session_id: input.sessionID, cwd: directory }
      if (s.start === null) {
        s.start = (await run("session-start", { ...event, hook_event_name: "SessionStart", source: "startup" })).trim()
      }
      s.prompt = (await run("prompt", { ...event, hook_event_name: "UserPromptSubmit", prompt })).trim()
    },
    "experimental.chat.system.transform": async (input, output) => {
      const s = input.sessionID && sessions.get(input.sessionID)
      if (!s) return
      for (const text of [s.start, s.prompt]) if (text) output.system.push(text)
    },
    "experimental.text.complete": async (input, output) => {
      if (!input.sessionID || !output.text || !sessions.has(input.sessionID)) return
      await run("stop", {
        session_id: input.sessionID,
        cwd: directory,
        hook_event_name: "Stop",
        last_assistant_message: output.text,
      })
    },
  }
}
`
