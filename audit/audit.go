// Package audit reads what a skill puts in front of an agent — its
// SKILL.md and every text file of its folder — for what a reader would
// not see or should not trust: characters that act on a terminal or hide
// text, megagit's own tags and markers forged, words addressed to the
// agent's controller rather than to the task, scripts that run a download
// or send credentials out, long base64 blobs, and programs or libraries. `megagit audit`, `lint`,
// `skill import` and `adopt` call it; each finding names a file, a line, a
// rule and a severity, and a high one keeps a skill out of the registry
// unless the user allows its rule.
package audit

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Severity ranks a finding: High is what a skill has no honest reason to
// hold (it blocks import and adopt), Medium what deserves a look, Low
// what is worth knowing (audit shows it, lint does not).
type Severity string

// The severities, lowest first.
const (
	Low    Severity = "low"
	Medium Severity = "medium"
	High   Severity = "high"
)

// rank orders severities for sorting and comparing.
func (s Severity) rank() int {
	switch s {
	case High:
		return 3
	case Medium:
		return 2
	case Low:
		return 1
	}
	return 0
}

// AtLeast reports whether s is as severe as min.
func (s Severity) AtLeast(min Severity) bool { return s.rank() >= min.rank() }

// Finding is one thing the audit saw, shaped for a terminal line and
// --json alike.
type Finding struct {
	// File is slash-separated, relative to the skill's folder.
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
}

func (f Finding) String() string {
	return fmt.Sprintf("%s:%d: %s (%s): %s", f.File, f.Line, f.Rule, f.Severity, f.Message)
}

// Rule is one rule of the audit, as `megagit audit` documents it.
type Rule struct {
	ID  string
	Max Severity // the most severe finding it makes
	Doc string
}

// The rule ids.
const (
	RuleControl   = "control-char"
	RuleBidi      = "bidi-char"
	RuleInvisible = "invisible-char"
	RuleForged    = "forged-tag"
	RuleDirective = "agent-directive"
	RuleDownload  = "download-exec"
	RuleExfil     = "secret-exfil"
	RuleRawIP     = "raw-ip"
	RuleBase64    = "base64-blob"
	RuleBinary    = "binary"
	RuleUnread    = "unread"
)

// Rules are every rule, in the order findings of a line are reported.
var Rules = []Rule{
	{RuleControl, High, "a control character other than tab, newline, carriage return and form feed (ESC, BEL, the C1 range): a terminal acts on it instead of showing it"},
	{RuleBidi, High, "a bidirectional embedding, override or isolate (U+202A–U+202E, U+2066–U+2069): text shown in another order than a model reads it"},
	{RuleInvisible, High, "a character that shows as nothing: zero-width space, word joiner, bidi marks, a byte-order mark past the start (medium); a zero-width joiner between two ASCII characters (medium); a tag character, which spells ASCII only a model reads (high)"},
	{RuleForged, High, "megagit's own `<skill-used` report tag, or a line opening as one of megagit's injection markers, inside a skill: a forged verdict or a forged instruction"},
	{RuleDirective, High, "words addressed to the agent's controller: overriding its instructions or system prompt (high), keeping something from the user (medium); in an HTML comment, which a reader of the rendered file never sees, a directive is high and an instruction addressed to the model medium; quoted or in a code block, it is an example (low)"},
	{RuleDownload, High, "a script that runs what it downloads (curl or wget piped to a shell or an interpreter, a shell over `$(curl …)`, PowerShell's Invoke-Expression of a download, Python's exec of a fetched text); in a Markdown file, an instruction to the agent to do so (low)"},
	{RuleExfil, High, "a script that reads credentials (~/.ssh, ~/.aws, .netrc, .git-credentials, a kube or docker config) or dumps the environment (env, printenv, os.environ, process.env) and also sends data out (curl or wget with data, nc, /dev/tcp, an HTTP POST)"},
	{RuleRawIP, Medium, "a script that reaches a public IP address (a URL, /dev/tcp, nc, ssh) instead of a host name; loopback, private and documentation ranges are not flagged"},
	{RuleBase64, High, "a base64 run of 200 characters or more: decoding to binary (low), to text (medium), to text a rule finds high (high)"},
	{RuleBinary, High, "a program or a library, known by its first bytes whatever its name: ELF (Linux programs and shared objects), Mach-O, a Windows PE, WebAssembly, a static (ar) archive (high); any other file holding NUL bytes, such as an image, is not read as text (low)"},
	{RuleUnread, Low, "a file the audit did not read: a symlink, not a regular file, past the size or file cap"},
}

// RuleOf returns the rule of id, and whether there is one.
func RuleOf(id string) (Rule, bool) {
	for _, r := range Rules {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}

// CheckAllow says which of ids is not a rule, so `--allow` with a typo
// fails instead of allowing nothing.
func CheckAllow(ids []string) error {
	for _, id := range ids {
		if _, ok := RuleOf(id); !ok {
			names := make([]string, len(Rules))
			for i, r := range Rules {
				names[i] = r.ID
			}
			return fmt.Errorf("--allow %q: not an audit rule (%s)", id, strings.Join(names, ", "))
		}
	}
	return nil
}

// Blocking are the high findings whose rule is not allowed: what keeps a
// skill out of `skill import` and `adopt`.
func Blocking(fs []Finding, allow []string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Severity == High && !slices.Contains(allow, f.Rule) {
			out = append(out, f)
		}
	}
	return out
}

// Worst is the most severe of fs ("" for none).
func Worst(fs []Finding) Severity {
	var w Severity
	for _, f := range fs {
		if f.Severity.rank() > w.rank() {
			w = f.Severity
		}
	}
	return w
}

// sortFindings orders findings by file, line, then the rules' order.
func sortFindings(fs []Finding) {
	order := map[string]int{}
	for i, r := range Rules {
		order[r.ID] = i
	}
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.File != b.File {
			if (a.File == skillFile) != (b.File == skillFile) {
				return a.File == skillFile
			}
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return order[a.Rule] < order[b.Rule]
	})
}
