package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryPackageTestsInItsOwnHome: every package with tests has a
// TestMain that runs them through internal/testhome, so no test of the
// module reads the skills, registries and settings of whoever runs it, nor
// runs the megagit or megagit-hook on their PATH.
func TestEveryPackageTestsInItsOwnHome(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	tested := map[string]bool{} // folder -> has a TestMain through testhome
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		tested[dir] = tested[dir] || mainCallsTesthome(f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir, ok := range tested {
		if !ok {
			t.Errorf("%s: its tests have no TestMain running them through internal/testhome (add `func TestMain(m *testing.M) { testhome.Main(m) }`)", dir)
		}
	}
}

// mainCallsTesthome: f's TestMain calls a function of internal/testhome.
func mainCallsTesthome(f *ast.File) bool {
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || fn.Name.Name != "TestMain" || fn.Body == nil {
			continue
		}
		found := false
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "testhome" {
					found = true
				}
			}
			return !found
		})
		return found
	}
	return false
}
