package decisionlog

import (
	"testing"

	"github.com/megagit/megagit/local"
)

func TestRead(t *testing.T) {
	dir := local.Open(t.TempDir(), 0)
	if ds, err := Read(dir); err != nil || len(ds) != 0 {
		t.Fatalf("no log: %v %v", ds, err)
	}
	log := "{\"time\":\"2025-03-01T10:00:00Z\",\"k\":1}\nnot json\n{\"time\":\"2025-03-01T10:01:00Z\",\"k\":2}\n"
	if err := dir.Write(File, []byte(log)); err != nil {
		t.Fatal(err)
	}
	ds, err := Read(dir)
	if err != nil || len(ds) != 2 || ds[1].K != 2 {
		t.Fatalf("log: %+v %v", ds, err)
	}
}
