package skillfile

import (
	"errors"
	"strings"
	"testing"

	"github.com/megagit/megagit/errkind"
)

func TestWithName(t *testing.T) {
	tests := []struct {
		name, in, to, want, err string
	}{
		{name: "plain", in: "---\nname: old\ndescription: d\n---\nbody old\n", to: "new",
			want: "---\nname: new\ndescription: d\n---\nbody old\n"},
		{name: "double quoted stays quoted", in: "---\nname: \"old\" # id\ndescription: d\n---\n", to: "new-name",
			want: "---\nname: \"new-name\" # id\ndescription: d\n---\n"},
		{name: "single quoted, CRLF, evidence kept", in: "---\r\ndescription: d\r\nname:   'old'\r\nmega_meta:\r\n  helpful_count: 2\r\n---\r\n", to: "x1",
			want: "---\r\ndescription: d\r\nname:   'x1'\r\nmega_meta:\r\n  helpful_count: 2\r\n---\r\n"},
		{name: "a name YAML would read as a number gets quotes", in: "---\nname: old\ndescription: d\n---\n", to: "123",
			want: "---\nname: \"123\"\ndescription: d\n---\n"},
		{name: "after a multi-byte description", in: "---\ndescription: café ☕\nname: old\n---\n", to: "new",
			want: "---\ndescription: café ☕\nname: new\n---\n"},
		{name: "no name key", in: "---\ndescription: d\n---\n", to: "new", err: "field name: missing"},
		{name: "block scalar", in: "---\nname: |\n  old\ndescription: d\n---\n", to: "new", err: "not a one-line string"},
		{name: "bad new name", in: "---\nname: old\n---\n", to: "New", err: "uppercase"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("s/SKILL.md", []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			got, err := f.WithName(tt.to)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, errkind.ErrInvalid) {
					t.Fatalf("WithName(%q) = %q, %v; want an invalid-input error containing %q", tt.to, got, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("WithName(%q):\n got %q\nwant %q", tt.to, got, tt.want)
			}
		})
	}
}
