package errkind

import (
	"errors"
	"fmt"
	"testing"
)

// A family member prints as its label and is an ErrInvalid, wrapped or
// not; two members are not each other.
func TestInvalidFamily(t *testing.T) {
	cfg := Invalid("config")
	err := fmt.Errorf("%w: x.yaml: field route.top_k: not a number", cfg)
	if !errors.Is(err, ErrInvalid) || !errors.Is(err, cfg) {
		t.Fatalf("%v is not an ErrInvalid and a config error", err)
	}
	if err.Error() != "config: x.yaml: field route.top_k: not a number" {
		t.Fatalf("printed %q", err)
	}
	if errors.Is(cfg, Invalid("other")) {
		t.Fatal("two members of the family match each other")
	}
	if errors.Is(errors.New("invalid input"), ErrInvalid) {
		t.Fatal("an error with the same text is no ErrInvalid")
	}
}
