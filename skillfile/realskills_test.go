package skillfile

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// realSkillsDir is the repository's sample of published skills;
// testdata/realskills/README.md says where each comes from.
var realSkillsDir = filepath.Join("..", "testdata", "realskills")

// provenanceRow is one row of the sample's provenance.tsv.
type provenanceRow struct {
	name, repo, sha256 string
	bytes              int
}

// realSkillRows reads provenance.tsv: one row per copied skill.
func realSkillRows(t *testing.T) []provenanceRow {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(realSkillsDir, "provenance.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	const header = "name\trepo\tpath\tcommit\tcommit_date\tlicense\tsha256\tbytes"
	if lines[0] != header {
		t.Fatalf("provenance.tsv header %q, want %q", lines[0], header)
	}
	var rows []provenanceRow
	for i, line := range lines[1:] {
		f := strings.Split(line, "\t")
		if len(f) != 8 {
			t.Fatalf("provenance.tsv line %d: %d fields, want 8", i+2, len(f))
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("provenance.tsv line %d: bytes %q", i+2, f[7])
		}
		rows = append(rows, provenanceRow{name: f[0], repo: f[1], sha256: f[6], bytes: n})
	}
	if len(rows) < 30 {
		t.Fatalf("provenance.tsv lists %d skills; the sample has 40", len(rows))
	}
	return rows
}

// realSkills are the sample's SKILL.md files, one per provenance row.
func realSkills(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, r := range realSkillRows(t) {
		files = append(files, filepath.Join(realSkillsDir, "skills", r.name, "SKILL.md"))
	}
	return files
}

// TestRealSkillsAreUnmodifiedCopies: every sample file is the upstream
// file its provenance row names, byte for byte, with its repository's
// licence beside it, and no skill is there without a row. The tests that
// read the sample are about files as authors publish them; a sample file
// edited to get past a failing test would hide the bug it found.
func TestRealSkillsAreUnmodifiedCopies(t *testing.T) {
	listed := map[string]bool{}
	for _, r := range realSkillRows(t) {
		listed[r.name] = true
		data, err := os.ReadFile(filepath.Join(realSkillsDir, "skills", r.name, "SKILL.md"))
		if err != nil {
			t.Error(err)
			continue
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != r.sha256 || len(data) != r.bytes {
			t.Errorf("%s: sha256 %s, %d bytes; provenance.tsv says %s, %d bytes", r.name, got, len(data), r.sha256, r.bytes)
		}
		licence := filepath.Join(realSkillsDir, "licenses", strings.ReplaceAll(r.repo, "/", "-")+".txt")
		if _, err := os.Stat(licence); err != nil {
			t.Errorf("%s: no licence for %s: %v", r.name, r.repo, err)
		}
	}
	dirs, err := os.ReadDir(filepath.Join(realSkillsDir, "skills"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !listed[d.Name()] {
			t.Errorf("skills/%s has no row in provenance.tsv", d.Name())
		}
	}
}
