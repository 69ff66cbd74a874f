package regsync

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/megagit/megagit/local"
)

// TestFetchCap: a source that unpacks to more than the cap is refused
// while it is fetched, naming the source and the cap; one within it is
// fetched whole (the objects written through the capped writer read back).
func TestFetchCap(t *testing.T) {
	dir, commit := gitRepo(t)
	commit(map[string]string{"skills/a/SKILL.md": strings.ReplaceAll(skillMD, "%s", "a"), "skills/a/big.txt": strings.Repeat("x", 3<<20)})
	old := fetchCap
	t.Cleanup(func() { fetchCap = old })

	fetchCap = 1 << 20
	_, err := FetchSource(context.Background(), dir, "")
	if !errors.Is(err, local.ErrTooLarge) || !errors.Is(err, local.ErrInvalid) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "1 MiB") {
		t.Fatalf("fetch of a 3 MiB source under a 1 MiB cap: %v, want a refusal naming the source and the cap", err)
	}

	fetchCap = 8 << 20
	src, err := FetchSource(context.Background(), dir, "")
	if err != nil {
		t.Fatal(err)
	}
	files, _, err := src.Files("skills/a", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(files["big.txt"]) != 3<<20 || !strings.Contains(string(files["SKILL.md"]), "name: a") {
		t.Fatalf("files read back: big.txt %d bytes, SKILL.md %q", len(files["big.txt"]), files["SKILL.md"])
	}
}
