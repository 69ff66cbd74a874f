package stop

import (
	"testing"

	"github.com/megagit/megagit/hook"
)

func TestImplicitOutcome(t *testing.T) {
	words := hook.RelevantWords("docker-slim", []string{"Use when a Dockerfile produces large images"})
	mk := func(prompts ...string) []Turn {
		ts := make([]Turn, len(prompts))
		for i, p := range prompts {
			ts[i].Prompt = p
		}
		return ts
	}
	tests := []struct {
		name  string
		turns []Turn
		final bool
		want  Outcome
	}{
		{"exit 0 of a relevant command", []Turn{{Prompt: "p", Commands: []Command{{Command: "ls", Done: true, ExitCode: 1}, {Command: "docker build .", Done: true}}}}, false,
			Outcome{Value: 1, Signal: "exit-code", Settled: true}},
		{"failed relevant command", []Turn{{Prompt: "p", Commands: []Command{{Command: "docker build .", Done: true, ExitCode: 2}}}}, false,
			Outcome{Value: -0.5, Signal: "exit-code", Settled: true}},
		{"correction within 3", mk("p", "ok", "No, that is not it"), false, Outcome{Value: -1, Signal: "correction", Settled: true}},
		{"correction too late", mk("p", "a", "b", "c", "that's wrong", "x"), false, Outcome{Value: 0, Signal: SignalNone, Settled: true}},
		{"success", mk("p", "looks good, thanks"), false, Outcome{Value: 0.5, Signal: "success", Settled: true}},
		{"pending", mk("p", "more"), false, Outcome{}},
		{"final", mk("p", "more"), true, Outcome{Value: 0, Signal: SignalNone, Settled: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ImplicitOutcome(tt.turns, 0, words, tt.final)
			got.Detail = ""
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestSuccessPhrases(t *testing.T) {
	for _, p := range []string{"commit this", "Ship it!", "looks good", "perfect"} {
		if !IsSuccess(p) {
			t.Errorf("IsSuccess(%q) = false", p)
		}
	}
}
