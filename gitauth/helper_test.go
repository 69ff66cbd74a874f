package gitauth

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
)

const credURL = "https://example.com/org/repo.git"

// credEnv isolates git's config and credential files in a temp HOME and
// returns it; the caller writes HOME/.gitconfig.
func credEnv(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	t.Setenv("GIT_CONFIG_COUNT", "")
	t.Setenv("GIT_EXEC_PATH", filepath.Join(home, "no-exec-path"))
	t.Setenv(EnvGitToken, "")
	t.Setenv(EnvGitUsername, "")
	return home
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

// fakeHelper writes a helper script dir/name that appends "== ARGS" and its
// stdin to dir/name.log and answers reply to get.
func fakeHelper(t *testing.T, dir, name, reply string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	writeFile(t, p, fmt.Sprintf("#!/bin/sh\nfor a; do action=$a; done\n{ echo \"== $*\"; cat; } >> '%s.log'\n[ \"$action\" = get ] || exit 0\nprintf '%%s' '%s'\n", p, reply))
	return p
}

// helperLog is what the helper at path was given, "" if it never ran.
func helperLog(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path + ".log")
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func wantBasic(t *testing.T, a transport.AuthMethod, user, pass string) {
	t.Helper()
	b, ok := a.(*githttp.BasicAuth)
	if !ok {
		t.Fatalf("auth %T %v, want basic auth %s", a, a, user)
	}
	if b.Username != user || b.Password != pass {
		t.Fatalf("auth %s:%s, want %s:%s", b.Username, b.Password, user, pass)
	}
}

func TestCredentialHelperForms(t *testing.T) {
	home := credEnv(t)
	bin := t.TempDir()
	abs := fakeHelper(t, bin, "fake-abs", "username=alice\npassword=s3cret\n")
	fakeHelper(t, bin, "git-credential-fake", "username=pathuser\npassword=pathpass\n")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	shellLog := filepath.Join(bin, "shell.log")

	tests := []struct {
		name, helper, user, pass string
		log, want                string // a log file and what it must hold
	}{
		{"absolute path with arguments", abs + ` --file='a b' "x\"y"`, "alice", "s3cret",
			abs + ".log", "== --file=a b x\"y get\nprotocol=https\nhost=example.com\n\n"},
		{"shell snippet", `!f() { cat > '` + shellLog + `'; echo username=bob; echo password=pw2; }; f`, "bob", "pw2",
			shellLog, "protocol=https\nhost=example.com\n\n"},
		{"git-credential-NAME in PATH", "fake --opt", "pathuser", "pathpass",
			filepath.Join(bin, "git-credential-fake.log"), "== --opt get\nprotocol=https\nhost=example.com\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			writeFile(t, filepath.Join(home, ".gitconfig"), "[credential]\n\thelper = \""+strings.ReplaceAll(strings.ReplaceAll(tt.helper, `\`, `\\`), `"`, `\"`)+"\"\n")
			a, err := For(credURL)
			if err != nil {
				t.Fatal(err)
			}
			wantBasic(t, a, tt.user, tt.pass)
			got, err := os.ReadFile(tt.log)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("helper got %q, want %q", got, tt.want)
			}
			os.Remove(tt.log)
		})
	}
}

// A helper runs with GIT_TERMINAL_PROMPT=0 and no controlling terminal,
// so it cannot stop megagit to ask for a password.
func TestCredentialHelperHasNoTerminal(t *testing.T) {
	home := credEnv(t)
	log := filepath.Join(t.TempDir(), "env.log")
	writeFile(t, filepath.Join(home, ".gitconfig"), `[credential]
	helper = "!f() { echo tp=$GIT_TERMINAL_PROMPT > '`+log+`'; if (: </dev/tty) 2>/dev/null; then echo tty >> '`+log+`'; fi; echo username=u; echo password=p; }; f"
`)
	a, err := For(credURL)
	if err != nil {
		t.Fatal(err)
	}
	wantBasic(t, a, "u", "p")
	if got, _ := os.ReadFile(log); string(got) != "tp=0\n" {
		t.Fatalf("helper environment: %q, want GIT_TERMINAL_PROMPT=0 and no /dev/tty", got)
	}
}

// Helpers run in config order (system, XDG, ~/.gitconfig, .git/config),
// each given what the earlier ones answered, until one completes the
// credential; the rest are not run.
func TestCredentialHelperOrderAndChaining(t *testing.T) {
	home := credEnv(t)
	bin := t.TempDir()
	sys := fakeHelper(t, bin, "sys", "username=u1\n")
	xdg := fakeHelper(t, bin, "xdg", "")
	glob := fakeHelper(t, bin, "glob", "password=p1\n")
	local := fakeHelper(t, bin, "local", "username=never\npassword=never\n")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "")
	t.Setenv("GIT_CONFIG_SYSTEM", filepath.Join(bin, "system.gitconfig"))
	writeFile(t, filepath.Join(bin, "system.gitconfig"), "[credential]\n\thelper = "+sys+"\n")
	writeFile(t, filepath.Join(home, ".config", "git", "config"), "[credential]\n\thelper = "+xdg+"\n")
	writeFile(t, filepath.Join(home, ".gitconfig"), "[credential]\n\thelper = "+glob+"\n\tuseHttpPath = true\n")
	gitDir := filepath.Join(t.TempDir(), ".git")
	writeFile(t, filepath.Join(gitDir, "config"), "[credential]\n\thelper = "+local+"\n")

	a, err := ForRepo(gitDir, credURL)
	if err != nil {
		t.Fatal(err)
	}
	wantBasic(t, a, "u1", "p1")
	base := "protocol=https\nhost=example.com\npath=org/repo.git\n"
	for _, c := range []struct{ helper, want string }{
		{sys, "== get\n" + base + "\n"},
		{xdg, "== get\n" + base + "username=u1\n\n"},
		{glob, "== get\n" + base + "username=u1\n\n"},
		{local, ""},
	} {
		if got := helperLog(t, c.helper); got != c.want {
			t.Errorf("%s got %q, want %q", filepath.Base(c.helper), got, c.want)
		}
	}
}

func TestCredentialHelperQuitStops(t *testing.T) {
	home := credEnv(t)
	bin := t.TempDir()
	quit := fakeHelper(t, bin, "quitter", "username=u\nquit=true\n")
	next := fakeHelper(t, bin, "next", "username=u\npassword=p\n")
	writeFile(t, filepath.Join(home, ".gitconfig"), "[credential]\n\thelper = "+quit+"\n\thelper = "+next+"\n")
	writeFile(t, filepath.Join(home, ".git-credentials"), "https://file:filepass@example.com\n")
	a, err := For(credURL)
	if err == nil || !strings.Contains(err.Error(), "quitter") || !strings.Contains(err.Error(), "quit") {
		t.Fatalf("auth %v, err %v; want an error naming the quitting helper", a, err)
	}
	if helperLog(t, next) != "" {
		t.Fatal("a helper after quit=true ran")
	}
}

// An empty helper value clears the list built so far, also across files;
// a helper that fails is skipped like git skips it.
func TestCredentialHelperEmptyValueResets(t *testing.T) {
	home := credEnv(t)
	bin := t.TempDir()
	global := fakeHelper(t, bin, "global", "username=g\npassword=g\n")
	failing := filepath.Join(bin, "failing")
	writeFile(t, failing, "#!/bin/sh\necho 'no keyring here' >&2\nexit 3\n")
	local := fakeHelper(t, bin, "local", "username=l\npassword=l\n")
	writeFile(t, filepath.Join(home, ".gitconfig"), "[credential]\n\thelper = "+global+"\n")
	gitDir := filepath.Join(t.TempDir(), ".git")
	writeFile(t, filepath.Join(gitDir, "config"), "[credential]\n\thelper =\n\thelper = "+failing+"\n\thelper = "+local+"\n")
	a, err := ForRepo(gitDir, credURL)
	if err != nil {
		t.Fatal(err)
	}
	wantBasic(t, a, "l", "l")
	if helperLog(t, global) != "" {
		t.Fatal("the helper cleared by an empty value ran")
	}
	// Without the repository, the global helper applies.
	a, err = For(credURL)
	if err != nil {
		t.Fatal(err)
	}
	wantBasic(t, a, "g", "g")
}

func TestCredentialHelperPerURL(t *testing.T) {
	home := credEnv(t)
	bin := t.TempDir()
	org := fakeHelper(t, bin, "org", "username=org\npassword=o\n")
	other := fakeHelper(t, bin, "other", "username=other\npassword=x\n")
	writeFile(t, filepath.Join(home, ".gitconfig"), `[credential "https://example.com/org"]
	helper = `+org+`
	username = orguser
[credential "https://other.example"]
	helper = `+other+`
`)
	for _, tt := range []struct {
		url, user string
	}{
		{"https://example.com/org/repo.git", "org"},
		{"https://EXAMPLE.com:443/org", "org"},
		{"https://example.com/organisation/repo.git", ""},
		{"https://example.com/repo.git", ""},
		{"http://example.com/org/repo.git", ""},
		{"https://example.com:8443/org/repo.git", ""},
		{"https://other.example/any/repo.git", "other"},
	} {
		a, err := For(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		if tt.user == "" {
			if a != nil {
				t.Errorf("%s: auth %v, want none", tt.url, a)
			}
			continue
		}
		b, ok := a.(*githttp.BasicAuth)
		if !ok || b.Username != tt.user {
			t.Errorf("%s: auth %v, want user %s", tt.url, a, tt.user)
		}
	}
	if got := helperLog(t, org); !strings.Contains(got, "username=orguser\n") {
		t.Fatalf("credential.<url>.username not passed to the helper: %q", got)
	}
}

func TestCredentialURLMatching(t *testing.T) {
	target := targetOf(&transport.Endpoint{Protocol: "https", Host: "git.example.com", Path: "/team/reg.git"})
	tests := []struct {
		pattern string
		want    bool
	}{
		{"https://git.example.com", true},
		{"https://git.example.com/", true},
		{"https://git.example.com/team", true},
		{"https://git.example.com/team/", true},
		{"https://git.example.com/team/reg.git", true},
		{"https://git.example.com/te", false},
		{"https://git.example.com/other", false},
		{"https://*.example.com", true},
		{"https://*.com", false},
		{"https://git.example.com:443", true},
		{"https://git.example.com:444", false},
		{"http://git.example.com", false},
		{"https://bob@git.example.com", false},
		{"git.example.com", true},
		{"git.example.com/team/reg.git", true},
		{"git.example.com/team", false},
		{"example.com", false},
	}
	for _, tt := range tests {
		if got := target.matches(tt.pattern); got != tt.want {
			t.Errorf("matches(%q) = %v, want %v", tt.pattern, got, tt.want)
		}
	}
}

func TestCredentialHelperTimeout(t *testing.T) {
	home := credEnv(t)
	old := helperTimeout
	helperTimeout = 300 * time.Millisecond
	t.Cleanup(func() { helperTimeout = old })
	writeFile(t, filepath.Join(home, ".gitconfig"), "[credential]\n\thelper = \"!hang() { sleep 30; }; hang\"\n")
	start := time.Now()
	_, err := For(credURL)
	if err == nil || !strings.Contains(err.Error(), "hang() { sleep 30; }; hang") || !strings.Contains(err.Error(), "did not answer") {
		t.Fatalf("err %v, want a timeout naming the helper", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("a hanging helper held megagit for %s", d)
	}
}

// URL credentials > MEGAGIT_GIT_TOKEN > helpers > the credential store file.
func TestCredentialPrecedence(t *testing.T) {
	home := credEnv(t)
	bin := t.TempDir()
	full := fakeHelper(t, bin, "full", "username=helper\npassword=hp\n")
	empty := fakeHelper(t, bin, "empty", "")
	writeFile(t, filepath.Join(home, ".git-credentials"), "https://file:fp@example.com\n")
	gitconfig := filepath.Join(home, ".gitconfig")

	writeFile(t, gitconfig, "[credential]\n\thelper = "+full+"\n")
	if a, err := For("https://u:p@example.com/org/repo.git"); err != nil || a != nil {
		t.Fatalf("URL credentials: auth %v err %v, want go-git to use the URL's", a, err)
	}
	t.Setenv(EnvGitToken, "tok")
	a, err := For(credURL)
	if err != nil {
		t.Fatal(err)
	}
	wantBasic(t, a, "x-access-token", "tok")
	if helperLog(t, full) != "" {
		t.Fatal("helper ran although MEGAGIT_GIT_TOKEN is set")
	}
	t.Setenv(EnvGitToken, "")
	a, err = For(credURL)
	if err != nil {
		t.Fatal(err)
	}
	wantBasic(t, a, "helper", "hp")

	writeFile(t, gitconfig, "[credential]\n\thelper = "+empty+"\n")
	a, err = For(credURL)
	if err != nil {
		t.Fatal(err)
	}
	wantBasic(t, a, "file", "fp")
}

// After the remote answers, the helpers hear store (success) or erase
// (HTTP 401) with the full credential, as git tells them.
func TestCredentialHelperStoreAndErase(t *testing.T) {
	home := credEnv(t)
	bin := t.TempDir()
	h := fakeHelper(t, bin, "keyring", "username=alice\npassword=pw\n")
	writeFile(t, filepath.Join(home, ".gitconfig"), "[credential]\n\thelper = "+h+"\n")
	rc, err := Lookup("", credURL)
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Done(nil); err != nil {
		t.Fatal(err)
	}
	_ = rc.Done(nil) // store is sent once
	authErr := fmt.Errorf("%w: bad credentials", transport.ErrAuthenticationRequired)
	if err := rc.Done(authErr); !errors.Is(err, transport.ErrAuthenticationRequired) {
		t.Fatalf("done changed the error to %v", err)
	}
	cred := "protocol=https\nhost=example.com\nusername=alice\n"
	want := "== get\nprotocol=https\nhost=example.com\n\n== store\n" + cred + "password=pw\n\n== erase\n" + cred + "password=pw\n\n"
	if got := helperLog(t, h); got != want {
		t.Fatalf("helper heard %q, want %q", got, want)
	}
}

func TestSplitShellWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"store", []string{"store"}},
		{"store --file=~/x", []string{"store", "--file=~/x"}},
		{`cache  --timeout 300 `, []string{"cache", "--timeout", "300"}},
		{`/p/h 'a b' "c \"d\"" e\ f ''`, []string{"/p/h", "a b", `c "d"`, "e f", ""}},
	}
	for _, tt := range tests {
		got, err := splitShellWords(tt.in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("splitShellWords(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{`a 'b`, `a "b`} {
		if _, err := splitShellWords(bad); err == nil {
			t.Errorf("splitShellWords(%q) accepted an unterminated quote", bad)
		}
	}
}
