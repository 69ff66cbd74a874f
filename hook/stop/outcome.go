package stop

// The implicit outcome of an injected skill, what the user and the shell
// said next, is the stop hook's: it reads the turns and records the
// outcome as a verdict. The correction phrases are history's, which spoils
// a use from the agents' session files by the same test.

import (
	"strconv"
	"strings"

	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/learn/history"
)

// How many user prompts after an injection a correction
// (history.IsCorrection) or a success phrase still speaks about it: a
// correction comes soon or is about something else; a success may wait
// until the work is done.
const (
	CorrectionWindow = 3
	SuccessWindow    = 5
)

// successRE are the phrases that say the task worked, anchored at the
// prompt start ("done" inside a sentence says little).
var successRE = lazyRE(`(?i)^(?:commit this|push it|ship it|looks good|perfect|nice|done|deploy it)\b`)

// IsSuccess reports whether a user prompt signals the task worked.
func IsSuccess(prompt string) bool { return successRE().MatchString(strings.TrimSpace(prompt)) }

// SignalNone is the signal of an injection nothing was heard of.
const SignalNone = "none"

// Outcome is one injection's implicit outcome: what the session said of
// the skill without the agent being asked.
type Outcome struct {
	Value  float64
	Signal string // exit-code, correction, success or none
	Detail string
	// Settled is false while the evidence may still change (the windows
	// have not passed and the session has not ended).
	Settled bool
}

// ImplicitOutcome scores the skill injected at turn `at` from what followed
// (the turns' prompts and shell commands),
// strongest signal first: the exit code of the first relevant shell command
// after the injection (+1.0 when 0, -0.5 otherwise), a correction within 3
// prompts (-1.0), a success phrase within 5 prompts (+0.5), else no signal
// (SignalNone, value 0: a silent session, which moves no weight but counts
// toward the silence penalty) once 5 prompts have passed or the session
// ended (final). A command is relevant
// when one of its words is one of words (the skill's name and trigger-line
// words, see hook.RelevantWords).
func ImplicitOutcome(turns []Turn, at int, words []string, final bool) Outcome {
	if at < 0 || at >= len(turns) {
		return Outcome{}
	}
	set := map[string]bool{}
	for _, w := range words {
		set[w] = true
	}
	for i := at; i < len(turns); i++ {
		for _, c := range turns[i].Commands {
			if !c.Done || !hook.Mentions(c.Command, set) {
				continue
			}
			if c.ExitCode == 0 {
				return Outcome{Value: 1, Signal: "exit-code", Detail: "exit 0: " + hook.Clip(c.Command, 80), Settled: true}
			}
			return Outcome{Value: -0.5, Signal: "exit-code", Detail: "exit " + strconv.Itoa(c.ExitCode) + ": " + hook.Clip(c.Command, 80), Settled: true}
		}
	}
	later := turns[at+1:]
	for i, t := range later {
		if i < CorrectionWindow && history.IsCorrection(t.Prompt) {
			return Outcome{Value: -1, Signal: "correction", Detail: hook.Clip(t.Prompt, 80), Settled: true}
		}
	}
	for i, t := range later {
		if i < SuccessWindow && IsSuccess(t.Prompt) {
			return Outcome{Value: 0.5, Signal: "success", Detail: hook.Clip(t.Prompt, 80), Settled: true}
		}
	}
	if final || len(later) >= SuccessWindow {
		return Outcome{Value: 0, Signal: SignalNone, Detail: "no signal", Settled: true}
	}
	return Outcome{}
}
