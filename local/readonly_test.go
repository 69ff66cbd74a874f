package local

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"testing"
)

func TestIsReadOnly(t *testing.T) {
	for _, err := range []error{
		&os.PathError{Op: "open", Path: "x", Err: syscall.EROFS},
		fmt.Errorf("saving: %w", &os.PathError{Op: "open", Path: "x", Err: syscall.EACCES}),
		fs.ErrPermission,
	} {
		if !IsReadOnly(err) {
			t.Errorf("%v is a refused write", err)
		}
	}
	if IsReadOnly(&os.PathError{Op: "open", Path: "x", Err: syscall.ENOSPC}) || IsReadOnly(nil) {
		t.Error("a full disk or no error is not read-only")
	}
}
