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
// returns its uses. What a use is in each format, and what spoils it, is
// written beside each reader (claude.go, codex.go, gemini.go, turns.go).
//
// Whatever the files hold, a read is bounded: a file is read line by line,
// at most MaxFile bytes of it, a line over MaxLine skipped unread, a
// prompt cut to MaxPrompt bytes; junk, torn and oversized lines are
// counted (Scan), never an error. No symlink is followed under an agent's
// folder (a symlinked project folder or session file is not listed, and
// Read refuses a path reached through one), and Read refuses a file that
// does not have the shape of its agent's session files.
package history
