package history

import (
	"path/filepath"
	"testing"
)

func TestDump(t *testing.T) {
	home, _ := filepath.Abs("testdata/home")
	ss, err := Sessions(Options{Home: home, Env: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		r, err := Scan(s)
		t.Logf("%s %s lines=%d junk=%d long=%d err=%v", s.Agent, filepath.Base(s.Path), r.Lines, r.Junk, r.Long, err)
		for _, u := range r.Uses {
			t.Logf("   %s|%s|%q|%s|%s|%s|spoiled=%v|%s|%s", u.Session, u.Time.Format("15:04:05"), u.Prompt, u.Skill, u.SkillPath, u.How, u.Spoiled, u.Cwd, filepath.Base(u.Path))
		}
	}
}
