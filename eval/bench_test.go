package eval

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/megagit/megagit/errkind"
)

func TestLoadQueries(t *testing.T) {
	tests := []struct {
		name, text string
		n          int
		wantErr    string
	}{
		{name: "kinds and blank lines", text: "{\"id\":\"a\",\"query\":\"x\",\"gold\":[\"s\"]}\n\n{\"id\":\"b\",\"query\":\"y\",\"gold\":[],\"kind\":\"small_talk\"}\r\n", n: 2},
		{name: "null gold", text: `{"id":"a","query":"x","gold":null}`, wantErr: `missing "gold"`},
		{name: "missing gold", text: `{"id":"a","query":"x"}`, wantErr: `q.jsonl:1: missing "gold"`},
		{name: "bad json", text: "{\"id\":\"a\",\"query\":\"x\",\"gold\":[]}\n{oops}\n", wantErr: "q.jsonl:2: "},
		{name: "missing id", text: `{"query":"x"}`, wantErr: `q.jsonl:1: missing "id"`},
		{name: "missing query", text: `{"id":"a"}`, wantErr: `q.jsonl:1: missing "query"`},
		{name: "empty", text: "\n", wantErr: "no queries"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "q.jsonl")
			if err := os.WriteFile(f, []byte(tt.text), 0o644); err != nil {
				t.Fatal(err)
			}
			qs, err := LoadQueries(f)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, errkind.ErrInvalid) {
					t.Fatalf("err = %v, want ErrInvalid containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(qs) != tt.n {
				t.Fatalf("got %d queries, %v; want %d", len(qs), err, tt.n)
			}
			for _, q := range qs {
				if q.Gold == nil {
					t.Errorf("%s: nil gold, want [] so JSON prints []", q.ID)
				}
			}
		})
	}
}

func TestQueryKind(t *testing.T) {
	tests := []struct {
		q    Query
		want string
	}{
		{Query{Gold: []string{}}, "null"},
		{Query{Gold: []string{"a"}}, "single"},
		{Query{Gold: []string{"a", "b"}}, "multi"},
		{Query{Gold: []string{"a"}, Kind: "k1"}, "k1"},
	}
	for _, tt := range tests {
		if got := tt.q.kind(); got != tt.want {
			t.Errorf("kind(%+v) = %q, want %q", tt.q, got, tt.want)
		}
	}
}
