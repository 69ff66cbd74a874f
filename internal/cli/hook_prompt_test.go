package cli

import (
	"strconv"
	"testing"
	"time"

	"github.com/megagit/megagit/hook/inject"
)

// TestHookStart checks a prompt handed over by megagit-hook keeps the
// deadline counting from megagit-hook's start, and that a stale or junk
// start is ignored.
func TestHookStart(t *testing.T) {
	ago := func(d time.Duration) string { return strconv.FormatInt(time.Now().Add(-d).UnixNano(), 10) }
	for _, tt := range []struct {
		env    string
		minAge time.Duration
		maxAge time.Duration
	}{
		{env: ago(200 * time.Millisecond), minAge: 200 * time.Millisecond, maxAge: time.Second},
		{env: ago(5 * time.Second), maxAge: 100 * time.Millisecond},
		{env: ago(-time.Hour), maxAge: 100 * time.Millisecond},
		{env: "junk", maxAge: 100 * time.Millisecond},
		{env: "", maxAge: 100 * time.Millisecond},
	} {
		t.Setenv(inject.StartEnv, tt.env)
		if age := time.Since(hookStart()); age < tt.minAge || age > tt.maxAge {
			t.Errorf("%s=%q: start %s ago, want %s to %s", inject.StartEnv, tt.env, age, tt.minAge, tt.maxAge)
		}
	}
}
