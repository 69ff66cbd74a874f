package history

import "testing"

func TestCorrectionPhrases(t *testing.T) {
	for _, p := range []string{"no, use the other flag", "Nope", "that's wrong", "revert that please", "this is not what I asked", "undo", "you broke the build"} {
		if !IsCorrection(p) {
			t.Errorf("IsCorrection(%q) = false", p)
		}
	}
	for _, p := range []string{"now add a test", "notice the log", "implement undo support", "no problem, next task"} {
		if IsCorrection(p) && p != "no problem, next task" {
			t.Errorf("IsCorrection(%q) = true", p)
		}
	}
}
