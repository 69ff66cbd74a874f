package gitauth

import (
	"errors"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
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

// An HTTPS remote authenticates with the helper's answer: over what one
// megagit sync does (fetch, push, fetch again, each through Cached) the
// helper is asked once and told to store once; a credential the server
// refuses is erased.
func TestSyncOverHTTPWithCredentialHelper(t *testing.T) {
	srvRoot := t.TempDir()
	if _, err := git.PlainInit(filepath.Join(srvRoot, "team.git"), true); err != nil {
		t.Fatal(err)
	}
	base := gitHTTPServer(t, srvRoot, "alice", "pw")
	home := credEnv(t)
	url := base + "/team.git"
	repo, gitDir := repoWithCommit(t, url)
	bin := t.TempDir()
	good := fakeHelper(t, bin, "good", "username=alice\npassword=pw\n")
	writeFile(t, filepath.Join(home, ".gitconfig"), "[credential]\n\thelper = "+good+"\n")
	t.Cleanup(func() { credCache.Lock(); clear(credCache.m); credCache.Unlock() })

	if err := syncLike(repo, gitDir, url); err != nil {
		t.Fatalf("sync over http: %v", err)
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
	err := syncLike(repo, gitDir, url)
	if !errors.Is(err, transport.ErrAuthenticationRequired) {
		t.Fatalf("sync with a refused credential: %v", err)
	}
	if log := helperLog(t, bad); !strings.Contains(log, "== erase\nprotocol=http\nhost="+strings.TrimPrefix(base, "http://")+"\nusername=alice\npassword=stale\n") {
		t.Fatalf("refused credential not erased:\n%s", log)
	}
}

// repoWithCommit makes a repository with one commit on main and the
// remote origin at url; it returns the repository and its .git folder.
func repoWithCommit(t *testing.T, url string) (*git.Repository, string) {
	t.Helper()
	dir := t.TempDir()
	repo, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")},
	})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "README"), "team registry\n")
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add("README"); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "Test User", Email: "test@example.com", When: time.Now()}
	if _, err := wt.Commit("first", &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{url}}); err != nil {
		t.Fatal(err)
	}
	return repo, filepath.Join(dir, ".git")
}

// syncLike fetches, pushes main and fetches again, each through Cached and
// reporting to Done, as megagit sync does.
func syncLike(repo *git.Repository, gitDir, url string) error {
	fetch := func(auth transport.AuthMethod) error {
		err := repo.Fetch(&git.FetchOptions{RemoteName: "origin", Auth: auth})
		if errors.Is(err, git.NoErrAlreadyUpToDate) || errors.Is(err, transport.ErrEmptyRemoteRepository) {
			return nil
		}
		return err
	}
	push := func(auth transport.AuthMethod) error {
		err := repo.Push(&git.PushOptions{RemoteName: "origin", Auth: auth, RefSpecs: []config.RefSpec{"refs/heads/main:refs/heads/main"}})
		if errors.Is(err, git.NoErrAlreadyUpToDate) {
			return nil
		}
		return err
	}
	for _, step := range []func(transport.AuthMethod) error{fetch, push, fetch} {
		creds, err := Cached(gitDir, url)
		if err != nil {
			return err
		}
		if err := creds.Done(step(creds.Auth)); err != nil {
			return err
		}
	}
	return nil
}
