package main

import (
	"strings"
	"testing"
)

func TestSlugify(t *testing.T) {
	for in, want := range map[string]string{
		"use intl":                "use-intl",
		"Hivemind  Context--Gov!": "hivemind-context-gov",
		"  -x- ":                  "x",
		"validação cpf":           "valida-o-cpf",
		"日本語":                     "",
		strings.Repeat("ab ", 40): strings.TrimRight(strings.Repeat("ab-", 22)[:64], "-"),
	} {
		if got := slugify(in); got != want {
			t.Errorf("slugify(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDedupe(t *testing.T) {
	d := dedupe{}
	long := strings.Repeat("a", 64)
	got := []string{d.unique("x"), d.unique("x"), d.unique("x"), d.unique("x-2"), d.unique(long), d.unique(long)}
	want := []string{"x", "x-2", "x-3", "x-2-2", long, strings.Repeat("a", 62) + "-2"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("unique #%d = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestSelectPairs(t *testing.T) {
	in := strings.Join([]string{
		`{"a":"p1","b":"too short"}`,
		`{"a":"p2","b":"a prompt with enough words in it"}`,
		`not json`,
		`{"a":"","b":"no name, only a description of many words"}`,
		`{"a":"Tool","b":"first   skill"}`,
		`{"a":"日本","b":"a name with no ascii letters"}`,
		`{"a":"tool","b":"second skill"}`,
		`{"a":"extra","b":"never read"}`,
	}, "\n")
	sel, err := selectPairs(strings.NewReader(in), 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.prompts) != 1 || sel.prompts[0] != "a prompt with enough words in it" {
		t.Errorf("prompts = %q", sel.prompts)
	}
	want := []skill{{"tool", "Tool", "first skill"}, {"tool-2", "tool", "second skill"}}
	if len(sel.skills) != 2 || sel.skills[0] != want[0] || sel.skills[1] != want[1] {
		t.Errorf("skills = %+v, want %+v", sel.skills, want)
	}
	if _, err := selectPairs(strings.NewReader(in), 5, 1); err == nil {
		t.Error("5 skills from 3 usable pairs: no error")
	}
}

func TestShellQuote(t *testing.T) {
	if got, want := shellQuote(`it's "$HOME" $(x)`), `'it'\''s "$HOME" $(x)'`; got != want {
		t.Errorf("shellQuote = %s, want %s", got, want)
	}
}
