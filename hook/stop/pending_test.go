package stop

import (
	"os"
	"testing"
	"time"

	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/ledger"
)

// memStore records verdicts as ledger entries in memory.
type memStore struct{ ledgers map[string][]ledger.Entry }

func (m *memStore) Ledgers() (map[string][]ledger.Entry, error) { return m.ledgers, nil }
func (m *memStore) Has(string) error                            { return nil }
func (m *memStore) Record(in []registry.VerdictInput, now time.Time) error {
	for _, v := range in {
		v, _ = registry.CleanInput(v)
		src := ledger.SourceExplicit
		if v.Implicit {
			src = ledger.SourceImplicit
		}
		m.ledgers[v.Skill] = append(m.ledgers[v.Skill], ledger.Entry{Skill: v.Skill, Verdict: string(v.Verdict), Source: src, Reason: v.Reason, Session: v.Session})
	}
	return nil
}

// TestPendingRecordedOnce: waiting verdicts are kept once each, recorded
// by a flush and removed; a file a killed flush left behind records
// nothing twice.
func TestPendingRecordedOnce(t *testing.T) {
	dir := local.Open(t.TempDir(), time.Second)
	v := registry.VerdictInput{Skill: "a", Verdict: lifecycle.Helpful, Reason: "worked", Session: "s1"}
	o := registry.VerdictInput{Skill: "a", Verdict: lifecycle.Helpful, Implicit: true, Outcome: 1, Reason: "implicit exit-code: exit 0: make", Session: "s1"}
	for range 2 {
		if err := savePending(dir, "s1", []registry.VerdictInput{v, o}); err != nil {
			t.Fatal(err)
		}
	}
	if n, s := Pending(dir); n != 2 || s != 1 {
		t.Fatalf("pending %d verdicts of %d sessions, want 2 of 1", n, s)
	}
	kept, _ := os.ReadFile(dir.Path() + "/" + pendingFile("s1"))
	store := &memStore{ledgers: map[string][]ledger.Entry{}}
	if n, err := FlushPending(dir, store, time.Now()); err != nil || n != 2 {
		t.Fatalf("flush recorded %d (%v), want 2", n, err)
	}
	if n, _ := Pending(dir); n != 0 {
		t.Fatalf("%d still pending after the flush", n)
	}
	// A flush killed after recording, before removing its file.
	if err := dir.Write(pendingFile("s1"), kept); err != nil {
		t.Fatal(err)
	}
	if n, err := FlushPending(dir, store, time.Now()); err != nil || n != 0 || len(store.ledgers["a"]) != 2 {
		t.Errorf("second flush recorded %d (%v); ledger holds %d, want 2", n, err, len(store.ledgers["a"]))
	}
}
