package skillfile

import (
	"errors"
	"strings"
	"testing"

	"github.com/megagit/megagit/errkind"
)

func TestValidateName(t *testing.T) {
	tests := []struct {
		name string
		msg  string // "" = valid
	}{
		{"pdf", ""},
		{"webhook-signer", ""},
		{"a", ""},
		{"123", ""},
		{"a--b", ""},
		{strings.Repeat("a", 64), ""},
		{"", "is empty"},
		{"..", `contains '.'`},
		{".", `contains '.'`},
		{"a/b", `contains '/'`},
		{`a\b`, `contains '\\'`},
		{"Abc", "uppercase letter 'A'"},
		{"a b", `contains ' '`},
		{"a_b", `contains '_'`},
		{"café", `contains 'é'`},
		{strings.Repeat("a", 65), "65 characters long"},
		{"-a", "starts with a hyphen"},
		{"a-", "ends with a hyphen"},
		{"-", "starts with a hyphen"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateName(tt.name)
			if tt.msg == "" {
				if err != nil {
					t.Fatalf("ValidateName(%q) = %v, want nil", tt.name, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("ValidateName(%q) = nil, want an error", tt.name)
			}
			if !errors.Is(err, errkind.ErrInvalid) {
				t.Errorf("error %v does not match errkind.ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tt.msg) || !strings.Contains(err.Error(), "lowercase letters (a-z), digits and hyphens") {
				t.Errorf("ValidateName(%q) = %q, want it to contain %q and the rule", tt.name, err, tt.msg)
			}
		})
	}
}
