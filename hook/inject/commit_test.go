package inject

import (
	"testing"
	"time"
)

// What the session memory and the decision log record must be what the
// agent got: a hook that gave up at its deadline records nothing, and a
// hook whose worker recorded the prompt prints the answer.
func TestCommitAgainstTheDeadline(t *testing.T) {
	t.Run("deadline first", func(t *testing.T) {
		st := &state{}
		if !st.giveUp() {
			t.Fatal("giveUp before any record: want true (print nothing)")
		}
		if st.beginCommit(time.Now(), time.Minute) {
			t.Fatal("beginCommit after the hook gave up: want false (record nothing)")
		}
	})
	t.Run("deadline passed, not yet seen", func(t *testing.T) {
		st := &state{}
		if st.beginCommit(time.Now().Add(-time.Second), time.Millisecond) {
			t.Fatal("beginCommit past the deadline: want false (record nothing)")
		}
		if !st.giveUp() {
			t.Fatal("giveUp after a refused record: want true (print nothing)")
		}
	})
	t.Run("record first", func(t *testing.T) {
		st := &state{}
		if !st.beginCommit(time.Now(), time.Minute) {
			t.Fatal("beginCommit before the deadline: want true")
		}
		gaveUp := make(chan bool)
		go func() { gaveUp <- st.giveUp() }() // the deadline passes while the worker writes
		st.endCommit()
		if <-gaveUp {
			t.Fatal("giveUp after the prompt was recorded: want false (print the answer)")
		}
	})
}
