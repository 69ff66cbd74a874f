package registry

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"testing"
)

func TestLocalFiles(t *testing.T) {
	r := newTestRegistry(t)
	if err := r.WriteLocal("sessions/a.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if data, err := r.ReadLocal("sessions/a.json"); err != nil || string(data) != "{}" {
		t.Fatalf("ReadLocal = %q, %v", data, err)
	}
	if _, err := r.ReadLocal("missing"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	for _, bad := range []string{"../config.yaml", "/etc/passwd", "", "a/../../x"} {
		if err := r.WriteLocal(bad, nil); !errors.Is(err, ErrInvalid) {
			t.Errorf("WriteLocal(%q) = %v, want ErrInvalid", bad, err)
		}
	}
	// AppendLocal keeps the newest whole lines once the file passes the bound.
	for i := 0; i < 200; i++ {
		if err := r.AppendLocal("log", []byte(fmt.Sprintf("line %03d", i)), 1000); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := r.ReadLocal("log")
	if len(data) > 1000 || !bytes.HasSuffix(data, []byte("line 199\n")) || !bytes.HasPrefix(data, []byte("line ")) {
		t.Errorf("bounded log (%d bytes) ends %q", len(data), data[max(0, len(data)-20):])
	}
}
