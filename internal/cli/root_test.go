package cli

import (
	"errors"
	"reflect"
	"testing"
)

// -C DIR is taken out before cobra parses, wherever it stands before "--",
// so a command with its own --dir (model use --dir) still honours it.
func TestTakeDirFlag(t *testing.T) {
	for _, c := range []struct {
		args, rest []string
		dir        string
	}{
		{[]string{"-C", "reg", "model", "use", "--dir", "m"}, []string{"model", "use", "--dir", "m"}, "reg"},
		{[]string{"model", "use", "-Creg", "--dir", "m"}, []string{"model", "use", "--dir", "m"}, "reg"},
		{[]string{"-C=reg", "route", "x"}, []string{"route", "x"}, "reg"},
		{[]string{"verdict", "s", "HELPFUL", "--", "-C", "x"}, []string{"verdict", "s", "HELPFUL", "--", "-C", "x"}, ""},
		{[]string{"route", "x"}, []string{"route", "x"}, ""},
	} {
		a := &app{}
		rest, err := takeDirFlag(a, c.args)
		if err != nil || a.dir != c.dir || !reflect.DeepEqual(rest, c.rest) {
			t.Errorf("%q: dir %q, rest %q, err %v; want %q, %q", c.args, a.dir, rest, err, c.dir, c.rest)
		}
	}
	var u usageError
	if _, err := takeDirFlag(&app{}, []string{"route", "-C"}); !errors.As(err, &u) {
		t.Errorf("a trailing -C: err %v, want a usage error", err)
	}
}
