package install

import (
	"strings"
	"testing"
)

func TestClaudeOverrideKeepsTheRest(t *testing.T) {
	in := []byte(`{"theme": "dark", "skillOverrides": {"mine": "off"}, "hooks": {}}`)
	out, err := SetClaudeOverride(in, "pdf-tables", ClaudeHidden)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"theme\": \"dark\",\n  \"skillOverrides\": {\n    \"mine\": \"off\",\n    \"pdf-tables\": \"user-invocable-only\"\n  },\n  \"hooks\": {}\n}\n"
	if string(out) != want {
		t.Fatalf("set:\n%s\nwant\n%s", out, want)
	}
	if v, err := ClaudeOverride(out, "pdf-tables"); err != nil || v != ClaudeHidden {
		t.Fatalf("read back %q, %v", v, err)
	}
	back, err := RemoveClaudeOverride(out, "pdf-tables")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(back), "pdf-tables") || !strings.Contains(string(back), `"mine": "off"`) {
		t.Fatalf("remove:\n%s", back)
	}
	empty, err := RemoveClaudeOverride([]byte(`{"skillOverrides": {"x": "user-invocable-only"}}`), "x")
	if err != nil || strings.Contains(string(empty), "skillOverrides") {
		t.Fatalf("an emptied skillOverrides stays: %s %v", empty, err)
	}
	for _, bad := range []string{`[1]`, `{"skillOverrides": []}`, `{"skillOverrides": {"x": 1}}`} {
		if _, err := ClaudeOverrides([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestGeminiDisabledList(t *testing.T) {
	out, err := AddGeminiDisabled([]byte(`{"ui": {"theme": "GitHub"}, "skills": {"disabled": ["mine"]}}`), "lint-fix")
	if err != nil {
		t.Fatal(err)
	}
	list, err := GeminiDisabled(out)
	if err != nil || strings.Join(list, ",") != "mine,lint-fix" {
		t.Fatalf("list %v, %v:\n%s", list, err, out)
	}
	again, _ := AddGeminiDisabled(out, "lint-fix")
	if string(again) != string(out) {
		t.Fatalf("adding twice changed the file:\n%s", again)
	}
	back, err := RemoveGeminiDisabled(out, "lint-fix")
	if err != nil || strings.Contains(string(back), "lint-fix") || !strings.Contains(string(back), `"mine"`) {
		t.Fatalf("remove:\n%s %v", back, err)
	}
	gone, _ := RemoveGeminiDisabled([]byte(`{"skills": {"disabled": ["x"]}}`), "x")
	if strings.TrimSpace(string(gone)) != "{}" {
		t.Fatalf("an emptied skills stays: %s", gone)
	}
	if _, err := GeminiDisabled([]byte(`{"skills": {"disabled": "x"}}`)); err == nil || !strings.Contains(err.Error(), "skills.disabled") {
		t.Fatalf("a bad list: %v", err)
	}
}
