package skillfile

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/megagit/megagit/lifecycle"
)

var updateFrontmatterGolden = flag.Bool("update-frontmatter", false, "rewrite testdata/frontmatter/*.golden")

func sampleEvidence() lifecycle.Evidence {
	return lifecycle.Evidence{
		HelpfulCount:       12,
		HarmfulCount:       2,
		HelpfulContexts:    []string{"validate the stripe webhook signature", `quote " and \ and 日本`, "x"},
		HarmfulContexts:    []string{"multi\nline"},
		Status:             lifecycle.Suspect,
		ConsecutiveHarmful: 1,
		TrajectoryWeight:   0.8512,
		ImplicitOutcomes:   3,
		SilentStreak:       7,
		LastSessionID:      "0193e3f0-5d2a-7c1b",
		LastUpdated:        time.Date(2026, 5, 21, 7, 54, 33, 0, time.UTC),
	}
}

// withoutEvidence removes the mega_meta block, giving what the file would
// be had it never been added.
func withoutEvidence(t testing.TB, path string, data []byte) []byte {
	t.Helper()
	f, err := Parse(path, data)
	if err != nil {
		t.Fatalf("re-parse %s: %v\n%s", path, err, data)
	}
	if !f.HasEvidence() {
		return data
	}
	start, end, _, err := f.evidenceSpan()
	if err != nil {
		t.Fatalf("span %s: %v", path, err)
	}
	return append(append([]byte{}, data[:start]...), data[end:]...)
}

// checkRoundTrip is the contract of WithEvidence shared by the fixture,
// bench and fuzz tests.
func checkRoundTrip(t testing.TB, path string, orig []byte, e lifecycle.Evidence) []byte {
	t.Helper()
	f, err := Parse(path, orig)
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.WithEvidence(e)
	if err != nil {
		t.Fatalf("WithEvidence: %v", err)
	}
	nf, err := Parse(path, out)
	if err != nil {
		t.Fatalf("result does not parse: %v\n%s", err, out)
	}
	if nf.Body() != f.Body() {
		t.Errorf("body changed:\n%q\n%q", f.Body(), nf.Body())
	}
	if got, want := withoutEvidence(t, path, out), withoutEvidence(t, path, orig); !bytes.Equal(got, want) {
		t.Errorf("bytes outside mega_meta changed:\nbefore %q\nafter  %q", want, got)
	}
	want, err := normalizeEvidence(path, e)
	if err != nil {
		t.Fatal(err)
	}
	got, err := nf.Evidence()
	if err != nil || !evidenceEqual(got, want) {
		t.Errorf("Evidence() = %+v, %v\nwant %+v", got, err, want)
	}
	again, err := nf.WithEvidence(e)
	if err != nil || !bytes.Equal(again, out) {
		t.Errorf("second WithEvidence not idempotent (%v):\n%q\n%q", err, out, again)
	}
	return out
}

func TestSkillFileWithEvidenceFixtures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "frontmatter", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatal("no fixtures", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			orig, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			out := checkRoundTrip(t, file, orig, sampleEvidence())
			golden := strings.TrimSuffix(file, ".md") + ".golden"
			if *updateFrontmatterGolden {
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update-frontmatter)", err)
			}
			if !bytes.Equal(out, want) {
				t.Errorf("WithEvidence differs from %s:\n%s", golden, out)
			}
			cold := checkRoundTrip(t, file, orig, lifecycle.ColdStart())
			if bytes.Contains(cold, []byte("last_updated")) || bytes.Contains(cold, []byte("implicit_outcomes")) {
				t.Errorf("cold start wrote optional keys:\n%s", cold)
			}
		})
	}
}

func TestSkillFileWithEvidenceDetails(t *testing.T) {
	e := sampleEvidence()
	t.Run("comment after mega_meta stays with the next key", func(t *testing.T) {
		out := checkRoundTrip(t, "c.md", readFixture(t, "comments.md"), e)
		if !bytes.Contains(out, []byte("  last_updated: \"2026-05-21T07:54:33Z\"\n# This comment documents the license key below.\nlicense: MIT\n")) {
			t.Errorf("comment moved:\n%s", out)
		}
		if !bytes.Contains(out, []byte("name: comments   # the folder name\n")) {
			t.Errorf("inline comment lost:\n%s", out)
		}
	})
	t.Run("CRLF stays CRLF", func(t *testing.T) {
		out := checkRoundTrip(t, "crlf.md", readFixture(t, "crlf.md"), e)
		if n := bytes.Count(out, []byte("\n")); n != bytes.Count(out, []byte("\r\n")) {
			t.Errorf("a bare LF crept in:\n%q", out)
		}
	})
	t.Run("BOM kept", func(t *testing.T) {
		out := checkRoundTrip(t, "bom.md", readFixture(t, "bom.md"), e)
		if !bytes.HasPrefix(out, fmUTF8BOM) {
			t.Errorf("BOM lost: %q", out[:10])
		}
	})
	t.Run("unknown keys carried over after known ones", func(t *testing.T) {
		out := string(checkRoundTrip(t, "u.md", readFixture(t, "unknown.md"), e))
		want := "  last_updated: \"2026-05-21T07:54:33Z\"\n  source_repo: github.com/acme/skills\n  notes:\n    - keep me\n    - and me\n---\n"
		if !strings.Contains(out, want) {
			t.Errorf("got\n%s\nwant it to contain\n%s", out, want)
		}
	})
	t.Run("exact block", func(t *testing.T) {
		out := string(checkRoundTrip(t, "n.md", []byte("---\nname: n\n---\n"), e))
		want := "---\nname: n\nmega_meta:\n" +
			"  helpful_count: 12\n" +
			"  harmful_count: 2\n" +
			"  helpful_contexts: [\"validate the stripe webhook signature\", \"quote \\\" and \\\\ and 日本\", \"x\"]\n" +
			"  harmful_contexts: [\"multi\\nline\"]\n" +
			"  status: suspect\n" +
			"  consecutive_harmful: 1\n" +
			"  trajectory_weight: 0.8512\n" +
			"  implicit_outcomes: 3\n" +
			"  silent_streak: 7\n" +
			"  last_session_id: \"0193e3f0-5d2a-7c1b\"\n" +
			"  last_updated: \"2026-05-21T07:54:33Z\"\n" +
			"---\n"
		if out != want {
			t.Errorf("got\n%s\nwant\n%s", out, want)
		}
	})
	t.Run("cold start block", func(t *testing.T) {
		out := string(checkRoundTrip(t, "n.md", []byte("---\n---\nbody"), lifecycle.ColdStart()))
		want := "---\nmega_meta:\n  helpful_count: 0\n  harmful_count: 0\n  helpful_contexts: []\n  harmful_contexts: []\n" +
			"  status: active\n  consecutive_harmful: 0\n  trajectory_weight: 1\n---\nbody"
		if out != want {
			t.Errorf("got\n%q\nwant\n%q", out, want)
		}
	})
	t.Run("weight rounded, time in UTC seconds", func(t *testing.T) {
		e := lifecycle.ColdStart()
		e.TrajectoryWeight = 1.00004
		e.LastUpdated = time.Date(2026, 1, 2, 3, 4, 5, 999, time.FixedZone("X", 3600))
		out := string(checkRoundTrip(t, "n.md", []byte("---\nname: n\n---\n"), e))
		if !strings.Contains(out, "  trajectory_weight: 1\n") || !strings.Contains(out, "  last_updated: \"2026-01-02T02:04:05Z\"\n") {
			t.Errorf("got\n%s", out)
		}
	})
	t.Run("document end marker", func(t *testing.T) {
		out := string(checkRoundTrip(t, "n.md", []byte("---\nname: n\n...\n---\n"), lifecycle.ColdStart()))
		if !strings.HasPrefix(out, "---\nname: n\nmega_meta:\n") || !strings.HasSuffix(out, "...\n---\n") {
			t.Errorf("got\n%s", out)
		}
	})
}

func TestSkillFileWithEvidenceRefuses(t *testing.T) {
	tests := []struct {
		name string
		data string
		e    func(*lifecycle.Evidence)
		msg  string
	}{
		{"negative count", "---\nname: n\n---\n", func(e *lifecycle.Evidence) { e.HelpfulCount = -1 }, "mega_meta.helpful_count"},
		{"unknown status", "---\nname: n\n---\n", func(e *lifecycle.Evidence) { e.Status = "zombie" }, "mega_meta.status"},
		{"weight out of range", "---\nname: n\n---\n", func(e *lifecycle.Evidence) { e.TrajectoryWeight = 2 }, "mega_meta.trajectory_weight"},
		{"scalar mega_meta", "---\nname: n\nmega_meta: hello\n---\n", nil, "must be a mapping"},
		{"flow frontmatter", "---\n{name: n, description: d}\n---\n", nil, "flow"},
		{"complex key", "---\n? mega_meta\n: helpful_count\nname: x\n---\n", nil, "does not start its own line"},
		{"complex inner key", "---\nmega_meta:\n  ? [a, b]\n  : c\n---\n", nil, "not a plain word"},
		{"empty inner key", "---\nmega_meta:\n  &a :\n    y: 1\n---\n", nil, "has an empty key"},
		{"lone CR before key", "---\nname: x\rmega_meta:\n  a: 1\n---\n", nil, "does not start its own line"},
		{"LS before next key", "---\nmega_meta:\n  a: 1\u2028name: x\n---\n", nil, "does not start its own line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := lifecycle.ColdStart()
			if tt.e != nil {
				tt.e(&e)
			}
			_, err := mustParse(t, "n.md", []byte(tt.data)).WithEvidence(e)
			if err == nil || !strings.Contains(err.Error(), tt.msg) || errors.Is(err, errSpliceCheck) {
				t.Errorf("got %v, want an error containing %q", err, tt.msg)
			}
		})
	}
}

func TestSkillFileEvidenceErrors(t *testing.T) {
	tests := []struct {
		name  string
		meta  string // lines after "mega_meta:", starting on file line 4
		line  int
		field string
		msg   string
	}{
		{"string count", "  helpful_count: \"x\"\n", 4, "mega_meta.helpful_count", "whole number"},
		{"float count", "  harmful_count: 1.5\n", 4, "mega_meta.harmful_count", "whole number"},
		{"negative count", "  status: active\n  consecutive_harmful: -2\n", 5, "mega_meta.consecutive_harmful", "0 or more"},
		{"unknown status", "  status: zombie\n", 4, "mega_meta.status", "unknown status"},
		{"weight high", "  trajectory_weight: 1.6\n", 4, "mega_meta.trajectory_weight", "between 0.3 and 1.5"},
		{"weight low", "  trajectory_weight: 0.1\n", 4, "mega_meta.trajectory_weight", "between 0.3 and 1.5"},
		{"weight nan", "  trajectory_weight: .nan\n", 4, "mega_meta.trajectory_weight", "between"},
		{"weight word", "  trajectory_weight: heavy\n", 4, "mega_meta.trajectory_weight", "number"},
		{"contexts scalar", "  helpful_contexts: one\n", 4, "mega_meta.helpful_contexts", "list of strings"},
		{"contexts nested", "  harmful_contexts:\n    - ok\n    - [nested]\n", 6, "mega_meta.harmful_contexts", "must be strings"},
		{"bad time", "  last_updated: yesterday\n", 4, "mega_meta.last_updated", "RFC 3339"},
		{"duplicate", "  helpful_count: 1\n  helpful_count: 2\n", 5, "mega_meta.helpful_count", "more than once"},
		{"not a mapping", " [1, 2]\n", 0, "mega_meta", "must be a mapping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := "---\nname: n\nmega_meta:\n" + tt.meta + "---\n"
			if strings.HasPrefix(tt.meta, " [") {
				data = "---\nname: n\nmega_meta:" + tt.meta + "---\n"
				tt.line = 3
			}
			ev, err := mustParse(t, "skills/n/SKILL.md", []byte(data)).Evidence()
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a *FieldError", err)
			}
			if fe.Line != tt.line || fe.Field != tt.field || !strings.Contains(fe.Msg, tt.msg) || fe.File != "skills/n/SKILL.md" {
				t.Errorf("got %q, want line %d field %q msg %q", err, tt.line, tt.field, tt.msg)
			}
			if !evidenceEqual(ev, lifecycle.ColdStart()) {
				t.Errorf("evidence on error = %+v, want cold start", ev)
			}
		})
	}
}

func TestSkillFileEvidenceLenient(t *testing.T) {
	data := "---\nname: n\nmega_meta:\n  helpful_count: \"4\"\n  harmful_count:\n  status: archived\n" +
		"  trajectory_weight: 1\n  last_session_id: 12345\n  last_updated: 2026-05-21\n  helpful_contexts: ~\n---\n"
	got, err := mustParse(t, "n.md", []byte(data)).Evidence()
	if err != nil {
		t.Fatal(err)
	}
	want := lifecycle.Evidence{HelpfulCount: 4, Status: lifecycle.Archived, TrajectoryWeight: 1, LastSessionID: "12345",
		LastUpdated: time.Date(2026, 5, 21, 0, 0, 0, 0, time.UTC)}
	if !evidenceEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

// TestSkillFileRealSkills writes and removes the evidence block of every
// published SKILL.md in testdata: real files written by many hands keep
// every byte megagit does not own, and the block megagit adds follows the
// file's line endings (a CRLF file gets no bare LF, an LF file no CR).
func TestSkillFileRealSkills(t *testing.T) {
	e := sampleEvidence()
	for _, file := range realSkills(t) {
		t.Run(filepath.Base(filepath.Dir(file)), func(t *testing.T) {
			orig, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			out := checkRoundTrip(t, file, orig, e)
			crlf, lf := bytes.Count(orig, []byte("\r\n")), bytes.Count(orig, []byte("\n"))
			if crlf == lf && bytes.Count(out, []byte("\r\n")) != bytes.Count(out, []byte("\n")) {
				t.Errorf("a CRLF file got bare LF line endings:\n%q", out)
			}
			if crlf == 0 && bytes.Contains(out, []byte("\r")) {
				t.Errorf("an LF file got CR line endings:\n%q", out)
			}
			f := mustParse(t, file, orig)
			if !f.HasEvidence() && !bytes.Equal(withoutEvidence(t, file, out), orig) {
				t.Errorf("removing mega_meta does not give the original back")
			}
			if f.Name() == "" || f.Description() == "" {
				t.Errorf("name %q description %q", f.Name(), f.Description())
			}
		})
	}
}
