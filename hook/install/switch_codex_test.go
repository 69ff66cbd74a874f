package install

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const codexUserDoc = `# my Codex settings
model = "gpt-5" # the default

[model_providers.mock]
base_url = "http://127.0.0.1:1/v1"

[[skills.config]]
name = "mine"
enabled = false
`

func TestCodexSkillOffRoundTrip(t *testing.T) {
	skill := "/src/app/.agents/skills/lint-fix/SKILL.md"
	out, err := AddCodexSkillOff([]byte(codexUserDoc), skill)
	if err != nil {
		t.Fatal(err)
	}
	want := codexUserDoc + "\n[[skills.config]]\npath = '" + skill + "'\nenabled = false\n"
	if string(out) != want {
		t.Fatalf("add:\n%s\nwant\n%s", out, want)
	}
	if v, err := CodexSkillSwitch(out, skill); err != nil || v != CodexOff {
		t.Fatalf("read back %q, %v", v, err)
	}
	again, err := AddCodexSkillOff(out, skill)
	if err != nil || string(again) != string(out) {
		t.Fatalf("adding twice changed the file: %v\n%s", err, again)
	}
	back, err := RemoveCodexSkillOff(out, skill)
	if err != nil {
		t.Fatal(err)
	}
	if string(back) != codexUserDoc {
		t.Fatalf("remove:\n%q\nwant\n%q", back, codexUserDoc)
	}
	// Nothing of megagit's: nothing changes.
	same, err := RemoveCodexSkillOff([]byte(codexUserDoc), skill)
	if err != nil || string(same) != codexUserDoc {
		t.Fatalf("remove of none: %v\n%s", err, same)
	}
}

func TestCodexSkillOffNewAndEmptied(t *testing.T) {
	skill := "/home/u/.agents/skills/x/SKILL.md"
	for _, in := range []string{"", "model = 'o3'"} {
		out, err := AddCodexSkillOff([]byte(in), skill)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if !strings.HasSuffix(string(out), "[[skills.config]]\npath = '"+skill+"'\nenabled = false\n") {
			t.Fatalf("%q: add:\n%s", in, out)
		}
		back, err := RemoveCodexSkillOff(out, skill)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]string{"": "", "model = 'o3'": "model = 'o3'\n"}[in]; string(back) != want {
			t.Fatalf("%q: remove gave %q, want %q", in, back, want)
		}
	}
}

// The user edited the file since: a key added after megagit's entry, a
// comment before the next table, another entry; removal takes only
// megagit's table.
func TestCodexSkillOffUserEdited(t *testing.T) {
	skill := "/p/.agents/skills/a/SKILL.md"
	out, err := AddCodexSkillOff([]byte(codexUserDoc), skill)
	if err != nil {
		t.Fatal(err)
	}
	edited := string(out) + "# later\n[[skills.config]]\npath = \"/p/.agents/skills/b/SKILL.md\"\nenabled = false\n\n[features]\nhooks = true\n"
	back, err := RemoveCodexSkillOff([]byte(edited), skill)
	if err != nil {
		t.Fatal(err)
	}
	want := codexUserDoc + "\n# later\n[[skills.config]]\npath = \"/p/.agents/skills/b/SKILL.md\"\nenabled = false\n\n[features]\nhooks = true\n"
	if string(back) != want {
		t.Fatalf("remove:\n%s\nwant\n%s", back, want)
	}
	// Written inline by the user: megagit cannot add a table of its own,
	// nor remove an inline entry.
	inline := "skills = { config = [{ path = \"" + skill + "\", enabled = false }] }\n"
	if _, err := RemoveCodexSkillOff([]byte(inline), skill); !errors.Is(err, errUnsafe) {
		t.Fatalf("remove inline: %v, want errUnsafe", err)
	}
	if _, err := AddCodexSkillOff([]byte("[skills]\nconfig = []\n"), skill); !errors.Is(err, errUnsafe) {
		t.Fatalf("add to an inline array: %v, want errUnsafe", err)
	}
}

func TestCodexSkillRulesRefuseWhatCodexRefuses(t *testing.T) {
	for doc, field := range map[string]string{
		"model = \n":                                     "not valid TOML",
		"skills = 1\n":                                   "field skills",
		"[skills]\nconfig = 1\n":                         "field skills.config",
		"[[skills.config]]\nname = \"x\"\n":              "skills.config[0].enabled",
		"[[skills.config]]\nenabled = \"no\"\n":          "skills.config[0].enabled",
		"[[skills.config]]\npath = 1\nenabled = false\n": "skills.config[0].path",
	} {
		_, err := CodexSkillRules([]byte(doc))
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%q: %v, want an error naming %s", doc, err, field)
		}
		if _, err := AddCodexSkillOff([]byte(doc), "/x/SKILL.md"); err == nil {
			t.Errorf("%q: add wrote over a file Codex refuses", doc)
		}
	}
}

func TestCodexDisabledResolvesAsCodex(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte("---\nname: a\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "real"), link); err != nil {
		t.Fatal(err)
	}
	skill := CanonicalPath(real)
	for _, c := range []struct {
		name  string
		rules []CodexSkillRule
		off   bool
	}{
		{"none", nil, false},
		{"by path", []CodexSkillRule{{Path: real}}, true},
		{"by a symlinked path", []CodexSkillRule{{Path: filepath.Join(link, "SKILL.md")}}, true},
		{"by name", []CodexSkillRule{{Name: " a "}}, true},
		{"another name", []CodexSkillRule{{Name: "b"}}, false},
		{"later wins", []CodexSkillRule{{Path: real}, {Name: "a", Enabled: true}}, false},
		{"a repeated selector counts at its last place", []CodexSkillRule{{Name: "a"}, {Path: real, Enabled: true}, {Name: "a"}}, true},
		{"both selectors: ignored", []CodexSkillRule{{Path: real, Name: "a"}}, false},
	} {
		if got := CodexDisabled(c.rules, skill, "a"); got != c.off {
			t.Errorf("%s: disabled %v, want %v", c.name, got, c.off)
		}
	}
}
