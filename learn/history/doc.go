// Package history finds, in the session files the coding agents keep, each
// prompt the user typed that was followed in the same turn by a use of a
// skill: what megagit learns from the history a user already has.
//
// Sessions lists the files where each agent keeps them, oldest first,
// without reading them: Claude Code's ~/.claude/projects/<project>/<id>.jsonl
// (CLAUDE_CONFIG_DIR for ~/.claude; a subagent's transcript, in
// <id>/subagents/, is not a session of the user's), Codex's
// ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl (CODEX_HOME for ~/.codex)
// and Gemini CLI's ~/.gemini/tmp/<project>/chats/session-*.jsonl, or .json
// from older versions (GEMINI_CLI_HOME for ~). Read reads one file and
// returns its uses, each named as the agent names the skill; a slash
// command is returned whatever it names (/compact too): the caller keeps
// the names its registry knows.
//
// A use, per agent (the formats as Claude Code 2.1.332, Codex 0.171.0 and
// Gemini CLI 0.61.0 write them, testdata/README.md):
//
//   - Claude Code: the Skill tool ("skill-tool"), a Read of a SKILL.md or
//     a Bash command reading one ("read"), the user's /name args ("slash",
//     the prompt being args);
//   - Codex: the user's $name, which Codex expands into a <skill> message
//     ("mention"), a shell command reading a SKILL.md ("read");
//   - Gemini CLI: activate_skill ("activate"), read_file of a SKILL.md or
//     run_shell_command reading one ("read").
//
// A use is Spoiled, as the stop hook's implicit outcomes would score it,
// when in the same turn a shell command after it failed (Claude Code's
// is_error Bash results, unless the user's permissions refused the
// command; Codex's exit codes; Gemini CLI's "Exit Code: N" and failed
// calls), when its own tool call failed or was refused (the skill never
// loaded), when the user's next prompt is a correction (IsCorrection), or
// when the user interrupted the turn (Claude Code's "[Request interrupted
// by user]").
//
// Whatever the files hold, a read is bounded: a file is read line by line,
// at most MaxFile bytes of it, a line over MaxLine skipped unread, a
// prompt cut to MaxPrompt bytes; junk, torn and oversized lines are
// counted (Scan), never an error. No symlink is followed under an agent's
// folder (a symlinked project folder or session file is not listed, and
// Read refuses a path reached through one), and Read refuses a file that
// does not have the shape of its agent's session files.
package history
