package archtest

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// megagit prints an error as it was made, so every message is worded
// right at the source: a lowercase first word (an acronym or a name with
// inner capitals, like ONNX or WordPiece, stays as it is) and no period at
// the end.
func TestErrorsAreWordedAtTheSource(t *testing.T) {
	for ip, p := range loadModule(t) {
		for file, f := range p.files {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) == 0 || !isErrorMaker(call.Fun) {
					return true
				}
				lit, ok := call.Args[0].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				msg, err := strconv.Unquote(lit.Value)
				if err != nil || msg == "" {
					return true
				}
				if bad := badVoice(msg); bad != "" {
					t.Errorf("%s/%s: %q: %s", strings.TrimPrefix(ip, module+"/"), file, msg, bad)
				}
				return true
			})
		}
	}
}

func isErrorMaker(fun ast.Expr) bool {
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && (x.Name == "errors" && sel.Sel.Name == "New" || x.Name == "fmt" && sel.Sel.Name == "Errorf")
}

// badVoice says what is wrong with an error message, or "".
func badVoice(msg string) string {
	first, _, _ := strings.Cut(msg, " ")
	runes := []rune(first)
	if unicode.IsUpper(runes[0]) {
		inner := false
		for _, r := range runes[1:] {
			inner = inner || unicode.IsUpper(r)
		}
		if !inner {
			return "starts with a capital"
		}
	}
	if strings.HasSuffix(msg, ".") && !strings.HasSuffix(msg, "...") {
		return "ends with a period"
	}
	return ""
}

func TestBadVoice(t *testing.T) {
	for msg, want := range map[string]string{
		"skill %q not found":                "",
		"ONNX Runtime not available":        "",
		"WordPiece error: missing [UNK]":    "",
		"Skill not found":                   "starts with a capital",
		"skill not found.":                  "ends with a period",
		"waiting for the lock...":           "",
		"GET %s: %s":                        "",
		"A skill":                           "starts with a capital",
		"%w: see `megagit help exit-codes`": "",
	} {
		if got := badVoice(msg); got != want {
			t.Errorf("badVoice(%q) = %q, want %q", msg, got, want)
		}
	}
}

// One family of invalid-input errors: errkind.ErrInvalid. A package with
// its own wording makes a member (errkind.Invalid), never a sentinel of
// its own that the exit codes would have to learn.
func TestOneInvalidSentinel(t *testing.T) {
	for ip, p := range loadModule(t) {
		if ip == module+"/errkind" {
			continue
		}
		for file, f := range p.files {
			ast.Inspect(f, func(n ast.Node) bool {
				vs, ok := n.(*ast.ValueSpec)
				if !ok {
					return true
				}
				for i, name := range vs.Names {
					if name.Name != "ErrInvalid" || i >= len(vs.Values) {
						continue
					}
					if call, ok := vs.Values[i].(*ast.CallExpr); ok && isErrorMaker(call.Fun) {
						t.Errorf("%s/%s declares its own ErrInvalid: use errkind.ErrInvalid, or errkind.Invalid for a wording of its own", strings.TrimPrefix(ip, module+"/"), file)
					}
				}
				return true
			})
		}
	}
}
