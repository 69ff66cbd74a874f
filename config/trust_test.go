package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// registryFiles makes a registry folder with a committed config (and a
// local one when local is not empty) and a user config (when user is not
// empty); it returns the files.
func registryFiles(t *testing.T, committed, local, user string) Files {
	t.Helper()
	for _, name := range EnvNames()[:len(EnvNames())-5] {
		t.Setenv(name, "")
		os.Unsetenv(name)
	}
	root := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "xdg"))
	files := FilesFor(filepath.Join(root, ".megagit", FileName))
	for _, f := range []struct{ path, body string }{{files.Registry, committed}, {files.Local, local}, {files.User, user}} {
		if f.body == "" {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f.path, []byte(f.body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// TestCommittedMachineSettingsAreIgnored: a registry's committed file may
// not name a library or a model folder; the user's own files, the
// environment and flags may.
func TestCommittedMachineSettingsAreIgnored(t *testing.T) {
	const evil = "model:\n  onnxruntime: ./skills/helper/lib.so\n  dir: skills/helper\n  id: none\nroute:\n  top_k: 3\n"
	files := registryFiles(t, evil, "", "")
	cfg, settings, err := LoadFiles(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Model.ONNXRuntime != "" || cfg.Model.Dir != "" {
		t.Errorf("a committed machine setting was taken: %+v", cfg.Model)
	}
	if cfg.Model.ID != "none" || cfg.Route.TopK != 3 {
		t.Errorf("a committed shared setting was lost: id %q, top_k %d", cfg.Model.ID, cfg.Route.TopK)
	}
	if len(cfg.Ignored) != 2 || cfg.Ignored[0].Key != "model.dir" || cfg.Ignored[1].Key != "model.onnxruntime" {
		t.Fatalf("Ignored = %+v", cfg.Ignored)
	}
	msg := cfg.Ignored[1].Error()
	if !strings.Contains(msg, files.Registry+" sets model.onnxruntime") || !strings.Contains(msg, "MEGAGIT_ONNXRUNTIME_LIB") {
		t.Errorf("the warning does not name file, key and the way: %s", msg)
	}
	if _, src := source(settings, "model.onnxruntime"); src != "default" {
		t.Errorf("model.onnxruntime from %q", src)
	}

	// The hook logs the same, and goes on.
	hcfg, problems, err := LoadHookFiles(files)
	if err != nil || hcfg.Model.ONNXRuntime != "" || len(problems) != 2 || !strings.HasSuffix(problems[1].Error(), "; ignored") {
		t.Fatalf("LoadHook = %+v, %v, %v", hcfg.Model, problems, err)
	}

	// The user's own: the local file, the user config (a path relative to
	// its folder), the environment.
	files = registryFiles(t, evil, "model:\n  dir: mine\n", "model:\n  onnxruntime: lib/libonnxruntime.so\n  dir: /ignored/below/local\n")
	cfg, settings, err = LoadFiles(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(filepath.Dir(files.User), "lib", "libonnxruntime.so"); cfg.Model.ONNXRuntime != want {
		t.Errorf("model.onnxruntime = %q, want %q (the user config's)", cfg.Model.ONNXRuntime, want)
	}
	if cfg.Model.Dir != "mine" {
		t.Errorf("model.dir = %q, want the local file's", cfg.Model.Dir)
	}
	if _, src := source(settings, "model.dir"); src != "file "+files.Local {
		t.Errorf("model.dir from %q", src)
	}
	t.Setenv("MEGAGIT_ONNXRUNTIME_LIB", "/opt/ort.so")
	if cfg, _, _ = LoadFiles(files, nil); cfg.Model.ONNXRuntime != "/opt/ort.so" {
		t.Errorf("the environment did not win: %q", cfg.Model.ONNXRuntime)
	}

	// Without the local file (git tracks it), the user config's folder.
	files.Local = ""
	if cfg, _, _ = LoadFiles(files, nil); cfg.Model.Dir != "/ignored/below/local" {
		t.Errorf("model.dir = %q, want the user config's", cfg.Model.Dir)
	}
}

// TestLocalFileOverridesCommitted: .megagit/local/config.yaml is this
// machine's, above the committed file for every setting; an unknown key
// there is an error naming it.
func TestLocalFileOverridesCommitted(t *testing.T) {
	files := registryFiles(t, "route:\n  top_k: 3\n", "route:\n  top_k: 6\n", "")
	cfg, _, err := LoadFiles(files, nil)
	if err != nil || cfg.Route.TopK != 6 {
		t.Fatalf("top_k = %v, %v; want 6", cfg, err)
	}
	files = registryFiles(t, "", "rout:\n  top_k: 6\n", "")
	if _, _, err := LoadFiles(files, nil); err == nil || !strings.Contains(err.Error(), files.Local+": unknown field rout.top_k") {
		t.Fatalf("unknown key in the local file: %v", err)
	}
	// The user config's other keys are LoadUser's, not settings.
	files = registryFiles(t, "", "", "team_registry: ~/team\nroute:\n  top_k: 2\n")
	if cfg, _, err := LoadFiles(files, nil); err != nil || cfg.Route.TopK != 5 {
		t.Fatalf("user config: %v, %v", cfg, err)
	}
}

// TestCommittedGateStaysInTheRegistry: a committed dynamic_k.gate given by
// an absolute path is ignored (a file of this machine); auto, off and a
// path inside the registry are taken.
func TestCommittedGateStaysInTheRegistry(t *testing.T) {
	files := registryFiles(t, "dynamic_k:\n  gate: /etc/passwd\n", "", "")
	cfg, _, err := LoadFiles(files, nil)
	if err != nil || cfg.DynamicK.Gate != "auto" || len(cfg.Ignored) != 1 || cfg.Ignored[0].Key != gateKey {
		t.Fatalf("Load = %+v, %v", cfg, err)
	}
	if !strings.Contains(cfg.Ignored[0].Error(), "absolute path") {
		t.Errorf("gate warning: %s", cfg.Ignored[0].Error())
	}
	files = registryFiles(t, "dynamic_k:\n  gate: \"off\"\n", "", "")
	if cfg, _, err := LoadFiles(files, nil); err != nil || cfg.DynamicK.Gate != "off" || len(cfg.Ignored) != 0 {
		t.Fatalf("Load = %+v, %v", cfg, err)
	}
}

// TestNoDurationIsNegative: every duration setting refuses a negative
// value, naming the field.
func TestNoDurationIsNegative(t *testing.T) {
	for _, f := range fields {
		if f.typ != durationType {
			continue
		}
		t.Run(f.key, func(t *testing.T) {
			_, _, _, err := load(t, "", map[string]string{f.env[0]: "-1"})
			if err == nil || !strings.Contains(err.Error(), "field "+f.key) || !strings.Contains(err.Error(), "not -1") {
				t.Fatalf("%s=-1: %v", f.env[0], err)
			}
		})
	}
}

// TestAuditAllow: an allow lets a held-back skill through, so a committed
// file may not set it (a teammate's commit would allow its own skill);
// this machine's files may, and a bad entry names the file and the key.
func TestAuditAllow(t *testing.T) {
	files := registryFiles(t, "audit:\n  allow: [\"*:*\"]\n", "audit:\n  allow: [\"deploy-*:download-exec\", \"notes:lock-drift\"]\n", "")
	cfg, _, err := LoadFiles(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cfg.Audit.Allow, " "); got != "deploy-*:download-exec notes:lock-drift" {
		t.Errorf("audit.allow = %q, want the local file's", got)
	}
	if len(cfg.Ignored) != 1 || cfg.Ignored[0].Key != "audit.allow" || !strings.Contains(cfg.Ignored[0].Error(), "holds back") {
		t.Errorf("Ignored = %+v", cfg.Ignored)
	}
	t.Setenv("MEGAGIT_AUDIT_ALLOW", "a-*:binary, b:lock-drift")
	if cfg, _, err := Load("", nil); err != nil || strings.Join(cfg.Audit.Allow, " ") != "a-*:binary b:lock-drift" {
		t.Errorf("from the environment: %q, %v", cfg.Audit.Allow, err)
	}
	t.Setenv("MEGAGIT_AUDIT_ALLOW", "")
	for _, bad := range []string{"deploy", "deploy:no-such-rule", ":binary", "[x:binary"} {
		files := registryFiles(t, "", "audit:\n  allow: [\""+bad+"\"]\n", "")
		_, _, err := LoadFiles(files, nil)
		if err == nil || !strings.Contains(err.Error(), "audit.allow") || !strings.Contains(err.Error(), files.Local) {
			t.Errorf("allow %q: err %v, want one naming %s and audit.allow", bad, err, files.Local)
		}
	}
}
