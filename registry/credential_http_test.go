package registry

import (
	"context"
	"errors"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// gitHTTPServer serves the bare repositories under root over smart HTTP
// with git's own git-http-backend (the test may use git; megagit may not),
// accepting only user:pass.
func gitHTTPServer(t *testing.T, root, user, pass string) string {
	t.Helper()
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Skip("git not installed")
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		t.Skip("no git-http-backend")
	}
	cgiHandler := &cgi.Handler{Path: backend, Env: []string{
		"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "REMOTE_USER=" + user, "GIT_CONFIG_NOSYSTEM=1",
	}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != user || p != pass {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		cgiHandler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A sync over HTTPS authenticates with the helper's answer, tells the
// helper to store it once, and to erase a credential the server refuses.
func TestSyncOverHTTPWithCredentialHelper(t *testing.T) {
	r := newTestRegistry(t, "s")
	srvRoot := t.TempDir()
	if _, err := git.PlainInit(filepath.Join(srvRoot, "team.git"), true); err != nil {
		t.Fatal(err)
	}
	base := gitHTTPServer(t, srvRoot, "alice", "pw")
	home := credEnv(t)
	if err := r.AddRemote("origin", base+"/team.git"); err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	good := fakeHelper(t, bin, "good", "username=alice\npassword=pw\n")
	writeFile(t, filepath.Join(home, ".gitconfig"), "[credential]\n\thelper = "+good+"\n")
	t.Cleanup(func() { credCache.Lock(); clear(credCache.m); credCache.Unlock() })

	res, err := r.Sync(context.Background(), SyncOptions{})
	if err != nil {
		t.Fatalf("sync over http: %v", err)
	}
	if !res.Pushed {
		t.Fatalf("nothing pushed: %+v", res)
	}
	log := helperLog(t, good)
	if n := strings.Count(log, "== get\n"); n != 1 {
		t.Errorf("helper asked %d times in one sync:\n%s", n, log)
	}
	if n := strings.Count(log, "== store\n"); n != 1 {
		t.Errorf("helper told to store %d times:\n%s", n, log)
	}
	if strings.Contains(log, "erase") {
		t.Errorf("helper told to erase a good credential:\n%s", log)
	}

	credCache.Lock()
	clear(credCache.m)
	credCache.Unlock()
	bad := fakeHelper(t, bin, "bad", "username=alice\npassword=stale\n")
	writeFile(t, filepath.Join(home, ".gitconfig"), "[credential]\n\thelper = "+bad+"\n")
	verdict(t, r, "s", "HELPFUL")
	_, err = r.Sync(context.Background(), SyncOptions{})
	if !errors.Is(err, transport.ErrAuthenticationRequired) {
		t.Fatalf("sync with a refused credential: %v", err)
	}
	if log := helperLog(t, bad); !strings.Contains(log, "== erase\nprotocol=http\nhost="+strings.TrimPrefix(base, "http://")+"\nusername=alice\npassword=stale\n") {
		t.Fatalf("refused credential not erased:\n%s", log)
	}
}
