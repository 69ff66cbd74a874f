package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/megagit/megagit"

// pure packages take values and return values: no files, no network, no
// environment, no clock of their own.
var pure = []string{"ranker", "lifecycle", "skillfile", "safetext", "errkind"}

// impure are the imports a pure package must not have.
var impure = []string{"os", "os/exec", "os/signal", "io/fs", "io/ioutil", "net", "syscall", "golang.org/x/sys/unix"}

// pkg is one package of the module as its non-test files import it.
type pkg struct {
	dir     string
	imports map[string]bool
	files   map[string]*ast.File // by file name
}

// loadModule parses the imports of every package in the module.
func loadModule(t *testing.T) map[string]*pkg {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found: %v", err)
	}
	pkgs := map[string]*pkg{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			// A folder with its own go.mod (lab/) is another module,
			// not a package of this one.
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		ip := module
		if rel != "." {
			ip += "/" + filepath.ToSlash(rel)
		}
		p := pkgs[ip]
		if p == nil {
			p = &pkg{dir: filepath.Dir(path), imports: map[string]bool{}, files: map[string]*ast.File{}}
			pkgs[ip] = p
		}
		p.files[name] = f
		for _, im := range f.Imports {
			s, _ := strconv.Unquote(im.Path.Value)
			p.imports[s] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

func TestPureRoomsStayPure(t *testing.T) {
	pkgs := loadModule(t)
	for _, name := range pure {
		p := pkgs[module+"/"+name]
		if p == nil {
			t.Errorf("pure package %s not found", name)
			continue
		}
		for im := range p.imports {
			if slices.Contains(impure, im) || strings.HasPrefix(im, "net/") {
				t.Errorf("%s imports %s: a pure package does no I/O", name, im)
			}
			if strings.HasPrefix(im, module+"/") && !slices.Contains(pure, strings.TrimPrefix(im, module+"/")) {
				t.Errorf("%s imports %s: a pure package imports only other pure packages", name, im)
			}
		}
		for file, f := range p.files {
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "time" && (sel.Sel.Name == "Now" || sel.Sel.Name == "Since" || sel.Sel.Name == "Until") {
					t.Errorf("%s: %s uses time.%s: the clock comes in as an argument", name, file, sel.Sel.Name)
				}
				return true
			})
		}
	}
}

// Imports flow one way: cmd -> internal/cli -> the packages that do I/O ->
// the pure packages. Nothing but cmd/megagit imports internal/cli, only
// config reads viper, and only mcpserver (with the command that runs it)
// speaks MCP.
func TestImportsFlowOneWay(t *testing.T) {
	pkgs := loadModule(t)
	for ip, p := range pkgs {
		for im := range p.imports {
			switch {
			case strings.HasPrefix(im, module+"/internal/cli") && ip != module+"/cmd/megagit":
				t.Errorf("%s imports %s: only cmd/megagit runs the commands", ip, im)
			case strings.HasPrefix(im, module+"/cmd/"):
				t.Errorf("%s imports %s: a command is never imported", ip, im)
			case strings.HasPrefix(im, "github.com/spf13/viper") && ip != module+"/config":
				t.Errorf("%s imports viper: config is its only reader", ip)
			case strings.HasPrefix(im, "github.com/spf13/cobra") && !strings.HasPrefix(ip, module+"/internal/cli"):
				t.Errorf("%s imports cobra: commands live in internal/cli", ip)
			case strings.HasPrefix(im, "github.com/modelcontextprotocol/go-sdk") && ip != module+"/mcpserver" && ip != module+"/internal/cli":
				t.Errorf("%s imports the MCP SDK: the MCP server lives in mcpserver", ip)
			case im == module+"/mcpserver" && ip != module+"/internal/cli":
				t.Errorf("%s imports mcpserver: only `megagit mcp` runs it", ip)
			}
		}
	}
	// local is the file layout every package shares, doctor the shape of
	// a doctor finding every checker reports, errkind the kinds of error:
	// leaves, importing no package of the module but errkind.
	for _, leaf := range []string{"local", "doctor", "errkind"} {
		if p := pkgs[module+"/"+leaf]; p != nil {
			for im := range p.imports {
				if strings.HasPrefix(im, module+"/") && im != module+"/errkind" {
					t.Errorf("%s imports %s: it is a leaf that every package may import", leaf, im)
				}
			}
		}
	}
	// The ledger's and the lock file's packages read and write bytes: the
	// registry does the file and git work around them.
	for _, name := range []string{"registry/ledger", "registry/skillslock"} {
		p := pkgs[module+"/"+name]
		if p == nil {
			t.Errorf("%s not found", name)
			continue
		}
		for im := range p.imports {
			if slices.Contains(impure, im) || strings.HasPrefix(im, "github.com/go-git/") || im == module+"/registry" {
				t.Errorf("%s imports %s: its format, parse and merge do no I/O and no git", name, im)
			}
		}
	}
	// The hooks' installer checks the agents' settings files: it links
	// no git (a doctor finding is doctor.Check, not the registry's).
	if p := pkgs[module+"/hook/install"]; p != nil {
		for im := range p.imports {
			if im == module+"/registry" || strings.HasPrefix(im, "github.com/go-git/") {
				t.Errorf("hook/install imports %s: installing a hook needs no git", im)
			}
		}
	}
	if p := pkgs[module+"/cmd/megagit"]; p != nil {
		for im := range p.imports {
			if strings.HasPrefix(im, module+"/") && im != module+"/internal/cli" {
				t.Errorf("cmd/megagit imports %s: its main only calls internal/cli", im)
			}
		}
	}
}

// The model packages: models (embedders) knows nothing of the vectors a
// registry keeps (embedcache) or of what learns from use (learn); the
// trainer (models/train) is linked only by what trains (learn and the
// commands), never by routing or the hooks.
func TestModelRoomsFlowDown(t *testing.T) {
	pkgs := loadModule(t)
	for ip, p := range pkgs {
		for im := range p.imports {
			switch {
			case strings.HasPrefix(ip, module+"/models") && (im == module+"/embedcache" || im == module+"/learn"):
				t.Errorf("%s imports %s: models sits below the vector cache and learn", ip, im)
			case im == module+"/models/train" && ip != module+"/learn" && ip != module+"/internal/cli":
				t.Errorf("%s imports models/train: only learn and the commands train", ip)
			}
		}
	}
}

// The hooks sit above learn: the stop hook scores implicit outcomes, and
// learn reads the decision log the prompt hook writes and the verdicts the
// stop hook leaves. So no package under learn imports one under hook; what
// learn needs of the hooks comes in as values or from decisionlog.
func TestLearnSitsBelowTheHooks(t *testing.T) {
	for ip, p := range loadModule(t) {
		if ip != module+"/learn" && !strings.HasPrefix(ip, module+"/learn/") {
			continue
		}
		for im := range p.imports {
			if im == module+"/hook" || strings.HasPrefix(im, module+"/hook/") {
				t.Errorf("%s imports %s: learn sits below the hooks, which import it; take what it needs as a value or from decisionlog", ip, im)
			}
		}
	}
}

// decisionlog is the leaf the hooks (which write the log) and learn
// (which reads it) both import: it imports ranker (the signals a line
// keeps) and local (the file) only, so importing it adds no arrow.
func TestDecisionLogIsALeaf(t *testing.T) {
	p := loadModule(t)[module+"/decisionlog"]
	if p == nil {
		t.Fatal("package decisionlog not found")
	}
	for im := range p.imports {
		if strings.HasPrefix(im, module+"/") && im != module+"/ranker" && im != module+"/local" {
			t.Errorf("decisionlog imports %s: the decision log is a leaf that the hooks and learn both import, so it imports only ranker and local", im)
		}
	}
}

// TestOneAtomicWriter keeps local.WriteAtomic the one place that writes a
// file through a temp file and a rename: a second copy would drift in what
// it syncs and cleans up.
func TestOneAtomicWriter(t *testing.T) {
	for ip, p := range loadModule(t) {
		if ip == module+"/local" {
			continue
		}
		for file, f := range p.files {
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "os" && sel.Sel.Name == "CreateTemp" {
						t.Errorf("%s: %s calls os.CreateTemp: write files through local.WriteAtomic", ip, file)
					}
				}
				return true
			})
		}
	}
}

// audit sits below registry and workspace, which call it before they
// trust a skill: it imports local and the pure packages only.
func TestAuditStaysLow(t *testing.T) {
	p := loadModule(t)[module+"/audit"]
	if p == nil {
		t.Fatal("package audit not found")
	}
	for im := range p.imports {
		if strings.HasPrefix(im, module+"/") && im != module+"/local" && !slices.Contains(pure, strings.TrimPrefix(im, module+"/")) {
			t.Errorf("audit imports %s: it imports local and the pure packages only", im)
		}
	}
}

// gitUsers are the only packages that import go-git, and what each may
// use it for. The registry reads and writes its repository through
// registry/gitstore alone; the rest talk git over the network.
var gitUsers = map[string]string{
	"registry/gitstore": "the repository: objects, refs, index, config",
	"registry/regsync":  "fetch, push, clone and the fetched pack's checks",
	"gitnet":            "the transports: http(s), ssh, git://",
	"gitauth":           "credentials as go-git's auth methods",
}

// gitNetFiles are the files of registry/regsync that fetch, push or
// clone: its merge (merge*.go, sync.go) reads trees through the store.
var gitNetFiles = []string{"fetchcap.go", "packscan.go", "ping.go", "remote.go", "remote_clone.go", "source.go"}

// go-git is the store's: the registry and everything above it name the
// store's types (gitstore.Hash) and call its methods, never go-git's.
func TestGoGitStaysInTheStore(t *testing.T) {
	for ip, p := range loadModule(t) {
		name := strings.TrimPrefix(ip, module+"/")
		for fname, f := range p.files {
			for _, im := range f.Imports {
				path, _ := strconv.Unquote(im.Path.Value)
				if !strings.HasPrefix(path, "github.com/go-git/") {
					continue
				}
				switch {
				case gitUsers[name] == "":
					t.Errorf("%s/%s imports %s: the registry's git is registry/gitstore's (the network's is regsync's, gitnet's, gitauth's)", name, fname, path)
				case name == "registry/regsync" && !slices.Contains(gitNetFiles, fname):
					t.Errorf("%s/%s imports %s: a sync's merge reads the repository through registry/gitstore; only its fetch, push and clone files use go-git", name, fname, path)
				}
			}
		}
	}
}

// Store().Git() hands out go-git's repository itself: only the files that
// fetch, push and clone take it, as only they import go-git.
func TestOnlyTheNetworkFilesTakeTheGitRepository(t *testing.T) {
	for ip, p := range loadModule(t) {
		name := strings.TrimPrefix(ip, module+"/")
		for fname, f := range p.files {
			if name == "registry/gitstore" || (name == "registry/regsync" && slices.Contains(gitNetFiles, fname)) {
				continue
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Git" || len(call.Args) != 0 {
					return true
				}
				if inner, ok := sel.X.(*ast.CallExpr); ok {
					if is, ok := inner.Fun.(*ast.SelectorExpr); ok && is.Sel.Name == "Store" {
						t.Errorf("%s/%s calls Store().Git(): read and write the repository through the store's methods", name, fname)
					}
				}
				return true
			})
		}
	}
}

// cliMayImport is every module package internal/cli may import, with
// why: a command parses its flags, makes one call into workspace (or the
// package that does the work) and prints. A package named here for a
// type, a constant or a message is no licence to run its algorithms from
// a command: a repair, a plan or a pipeline goes to the package that owns
// the data. What sits behind workspace (the agents' session readers
// learn/history, the learnt prompts' store learn/learnt, registry/ledger)
// is reached through it and is not on the list.
var cliMayImport = map[string]string{
	"workspace":           "glue",      // the registry opened with its config: most commands' one call
	"workspace/adopt":     "glue",      // adopt, restore; doctor's adopt checks and its --fix repair
	"workspace/checkup":   "glue",      // doctor's checks
	"config":              "settings",  // flags over the settings; `megagit config`
	"errkind":             "errors",    // sentinels mapped to exit codes
	"local":               "files",     // finding the registry, files a user names, the atomic writer
	"doctor":              "checks",    // the shape of doctor's findings
	"audit":               "findings",  // --allow RULE parsed; findings printed
	"gitauth":             "redaction", // URLs in messages
	"safetext":            "printing",  // what others wrote, escaped before it is printed
	"skillfile":           "printing",  // the size cap on a body read; lint's problems printed
	"lifecycle":           "parsing",   // verdict and status words
	"ranker":              "printing",  // scores, reasons and gates explained by route, why, tune, eval
	"registry":            "store",     // the opened registry's one-call operations and their errors
	"registry/regsync":    "sync",      // clone, remotes, fetching a source to install; sync's report
	"registry/skillslock": "naming",    // the lock file's name, install modes, file diffs printed
	"registry/install":    "installs",  // committing an install or update, verify, the lock's check; the update plan printed
	"embedcache":          "printing",  // the cache report and embed's chunk size
	"learn":               "learning",  // stats, tune's replay, model adapt
	"models":              "models",    // the built-in model's id, pulling and listing models
	"models/train":        "training",  // `megagit model train`'s one call
	"route":               "routing",   // route settings, the router
	"route/index":         "index",     // the compiled index: `megagit index`, its doctor check
	"route/dense":         "models",    // which model a registry routes with
	"route/serve":         "serving",   // the server's lock and state file (serve, doctor)
	"route/server":        "serving",   // `megagit serve`'s one call
	"eval":                "eval",      // `megagit eval`'s benchmarks and reports
	"hook":                "hooks",     // agents, the hook log, the project's words
	"hook/inject":         "hooks",     // the prompt and session-start hooks
	"hook/stop":           "hooks",     // the stop hook; its pending verdicts for doctor
	"hook/install":        "hooks",     // installing the hooks; their doctor checks
	"mcpserver":           "mcp",       // `megagit mcp`'s one call
}

// The commands parse, call and print: internal/cli imports only the module
// packages on its allow-list (cliMayImport), and the list names nothing it
// no longer imports.
func TestCommandsImportAnAllowList(t *testing.T) {
	p := loadModule(t)[module+"/internal/cli"]
	if p == nil {
		t.Fatal("internal/cli not found")
	}
	for im := range p.imports {
		name, ok := strings.CutPrefix(im, module+"/")
		if !ok {
			continue
		}
		if _, allowed := cliMayImport[name]; !allowed {
			var files []string
			for file, f := range p.files {
				for _, spec := range f.Imports {
					if s, _ := strconv.Unquote(spec.Path.Value); s == im {
						files = append(files, file)
					}
				}
			}
			slices.Sort(files)
			t.Errorf("internal/cli imports %s (%s), which is not on its allow-list: a command makes one call into workspace (or the package that does the work); move what it runs there, or add %q to cliMayImport in internal/archtest with the reason", name, strings.Join(files, ", "), name)
		}
	}
	for name := range cliMayImport {
		if !p.imports[module+"/"+name] {
			t.Errorf("cliMayImport allows %s, which internal/cli no longer imports: drop it from the list", name)
		}
	}
}

// The compiled index sits below the router: route builds a Router from
// what route/index holds, so route/index imports local and the pure
// packages only (never route, its server or the protocol), runs no
// program, opens no connection and links nothing outside the standard
// library but golang.org/x/sys, as the prompt hook reads it on every
// prompt.
func TestIndexSitsBelowTheRouter(t *testing.T) {
	p := loadModule(t)[module+"/route/index"]
	if p == nil {
		t.Fatal("package route/index not found")
	}
	for im := range p.imports {
		first, _, _ := strings.Cut(im, "/")
		switch {
		case strings.HasPrefix(im, module+"/"):
			if name := strings.TrimPrefix(im, module+"/"); name != "local" && !slices.Contains(pure, name) {
				t.Errorf("route/index imports %s: the compiled index sits below the router and imports local and the pure packages only", im)
			}
		case im == "os/exec" || im == "net" || strings.HasPrefix(im, "net/"):
			t.Errorf("route/index imports %s: the compiled index is a file, read and written, and runs nothing", im)
		case strings.Contains(first, ".") && !strings.HasPrefix(im, "golang.org/x/sys/"):
			t.Errorf("route/index imports %s: the compiled index links only the standard library and golang.org/x/sys", im)
		}
	}
}

// adopt (workspace/adopt) writes the agents' switches, journals them and
// takes them back; workspace only reads them (which skills are switched
// off, which switches are adopt's) to build the catalog. So the arrow runs
// adopt -> workspace: workspace never imports adopt (its doctor --fix
// runs adopt's repairs as a workspace.Recovery the command hands it), and
// only the commands and doctor's checkup do, so the hooks link none of it.
func TestAdoptSitsAboveWorkspace(t *testing.T) {
	pkgs := loadModule(t)
	const adopt = module + "/workspace/adopt"
	if p := pkgs[adopt]; p == nil || !p.imports[module+"/workspace"] {
		t.Fatalf("package workspace/adopt not found, or it does not import workspace")
	}
	for ip, p := range pkgs {
		if !p.imports[adopt] {
			continue
		}
		switch {
		case ip == module+"/workspace":
			t.Errorf("workspace imports %s: adopt sits above workspace, which only reads the switches adopt writes; hand what it needs in (a workspace.Recovery)", adopt)
		case ip != module+"/internal/cli" && ip != module+"/workspace/checkup":
			t.Errorf("%s imports %s: only the commands run adopt (and doctor's checkup reads it)", ip, adopt)
		}
	}
}
