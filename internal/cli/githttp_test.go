package cli

import (
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdGitHTTP is `githttp ROOT USER PASS`: serve the bare repositories
// under ROOT over smart HTTP with git's own git-http-backend (a test may
// run git; megagit may not), accepting only USER:PASS, for the rest of the
// script; $GITHTTP is its URL (http://127.0.0.1:PORT), $GITHOST its host
// and port.
func cmdGitHTTP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: githttp ROOT USER PASS")
	}
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		ts.Fatalf("git --exec-path: %v", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		ts.Fatalf("no git-http-backend: %v", err)
	}
	root, user, pass := ts.MkAbs(args[0]), args[1], args[2]
	h := &cgi.Handler{Path: backend, Env: []string{
		"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "REMOTE_USER=" + user, "GIT_CONFIG_NOSYSTEM=1",
	}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != user || p != pass {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	ts.Defer(srv.Close)
	ts.Setenv("GITHTTP", srv.URL)
	ts.Setenv("GITHOST", strings.TrimPrefix(srv.URL, "http://"))
}
