package gitnet

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
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
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"github.com/go-git/go-git/v5/storage/memory"
	"golang.org/x/crypto/ssh"
)

// stallServer is a loopback TCP server that accepts every connection,
// writes first (nothing, or a few bytes), then never answers; it returns
// its address.
func stallServer(t *testing.T, first string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if first != "" {
					_, _ = c.Write([]byte(first))
				}
				<-done // hold the connection open, answering nothing
			}()
		}
	}()
	return ln.Addr().String()
}

// sshAuth is a throwaway key that trusts any host key.
func sshAuth(t *testing.T) transport.AuthMethod {
	t.Helper()
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return &gitssh.PublicKeys{User: "git", Signer: signer, HostKeyCallbackHelper: gitssh.HostKeyCallbackHelper{HostKeyCallback: ssh.InsecureIgnoreHostKey()}}
}

// TestStalledRemotesTimeOut lists the refs of servers that accept and
// never answer, or answer their first bytes and stall, over every network
// transport: each list ends with ErrTimeout.
func TestStalledRemotesTimeOut(t *testing.T) {
	SetTimeout(300 * time.Millisecond)
	t.Cleanup(func() { SetTimeout(DefaultTimeout) })
	cases := []struct {
		name, scheme, first string
		auth                bool
	}{
		{"http silent", "http", "", false},
		{"http first bytes", "http", "HTTP/1.1 200 OK\r\nContent-Type: application/x-git-upload-pack-advertisement\r\n\r\n001e# ser", false},
		{"git silent", "git", "", false},
		{"git first bytes", "git", "0032", false},
		{"ssh silent", "ssh", "", true},
		{"ssh first bytes", "ssh", "SSH-2.0-OpenSSH_9.6\r\n", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			url := fmt.Sprintf("%s://%s/repo.git", tc.scheme, stallServer(t, tc.first))
			if tc.scheme == "ssh" {
				url = "ssh://git@" + strings.TrimPrefix(url, "ssh://")
			}
			var auth transport.AuthMethod
			if tc.auth {
				auth = sshAuth(t)
			}
			rem := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{url}})
			w := Begin()
			done := make(chan error, 1)
			go func() {
				_, err := rem.ListContext(context.Background(), &git.ListOptions{Auth: auth})
				done <- w.Err(err)
			}()
			select {
			case err := <-done:
				if !errors.Is(err, ErrTimeout) {
					t.Fatalf("list %s: %v, want a timeout", url, err)
				}
				if !strings.Contains(err.Error(), "network.timeout_ms") {
					t.Errorf("error %q does not name the setting", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("list %s still running after 30s", url)
			}
		})
	}
}

// TestWatchLeavesOtherErrors: a refused connection is not a timeout.
func TestWatchLeavesOtherErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	rem := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{"git://" + addr + "/r.git"}})
	w := Begin()
	_, err = rem.List(&git.ListOptions{})
	if err = w.Err(err); err == nil || errors.Is(err, ErrTimeout) {
		t.Fatalf("list of a closed port: %v, want a refusal that is no timeout", err)
	}
}

// TestGitProtocol clones from and pushes to git daemon over megagit's
// git:// transport.
func TestGitProtocol(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	base := t.TempDir()
	bare := filepath.Join(base, "r.git")
	run(t, "", "git", "init", "-q", "--bare", "-b", "main", bare)
	run(t, bare, "git", "config", "daemon.receivepack", "true")
	seed := filepath.Join(base, "seed")
	run(t, "", "git", "init", "-q", "-b", "main", seed)
	if err := os.WriteFile(filepath.Join(seed, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, seed, "git", "add", "a.txt")
	run(t, seed, "git", "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-q", "-m", "one")
	run(t, seed, "git", "push", "-q", bare, "main")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	d := exec.Command("git", "daemon", "--export-all", "--reuseaddr", "--enable=receive-pack", "--listen=127.0.0.1", fmt.Sprintf("--port=%d", port), "--base-path="+base, base)
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Process.Kill(); _ = d.Wait() })
	url := fmt.Sprintf("git://127.0.0.1:%d/r.git", port)
	var repo *git.Repository
	dir := filepath.Join(base, "clone")
	for i := 0; ; i++ { // the daemon takes a moment to listen
		repo, err = git.PlainClone(dir, false, &git.CloneOptions{URL: url})
		if err == nil || i == 50 {
			break
		}
		os.RemoveAll(dir)
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("clone %s: %v", url, err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "a.txt")); err != nil || string(data) != "one\n" {
		t.Fatalf("cloned a.txt = %q, %v", data, err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add("b.txt"); err != nil {
		t.Fatal(err)
	}
	h, err := wt.Commit("two", &git.CommitOptions{Author: &object.Signature{Name: "T", Email: "t@e", When: time.Now()}})
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.Push(&git.PushOptions{}); err != nil {
		t.Fatalf("push %s: %v", url, err)
	}
	out := run(t, bare, "git", "rev-parse", "main")
	if strings.TrimSpace(out) != h.String() {
		t.Fatalf("the remote's main is %s, want the pushed %s", out, h)
	}
	// Up to date: a fetch says so, and an empty or missing repository is
	// named as go-git names them.
	if err := repo.Fetch(&git.FetchOptions{}); !errors.Is(err, git.NoErrAlreadyUpToDate) {
		t.Fatalf("fetch: %v, want already up to date", err)
	}
	run(t, "", "git", "init", "-q", "--bare", filepath.Join(base, "empty.git"))
	for path, want := range map[string]error{"empty.git": transport.ErrEmptyRemoteRepository, "nope.git": transport.ErrRepositoryNotFound} {
		rem := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "o", URLs: []string{fmt.Sprintf("git://127.0.0.1:%d/%s", port, path)}})
		if _, err := rem.List(&git.ListOptions{}); !errors.Is(err, want) {
			t.Errorf("list %s: %v, want %v", path, err, want)
		}
	}
	refs, err := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "o", URLs: []string{url}}).List(&git.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range refs {
		found = found || r.Name() == plumbing.NewBranchReferenceName("main") && r.Hash() == h
	}
	if !found {
		t.Errorf("list %s: %v, want main at %s", url, refs, h)
	}
}

func run(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// A git:// server that advertises refs without end is refused once its
// list passes the cap, rather than filling the memory.
func TestGitEndlessAdvertisementRefused(t *testing.T) {
	defer func(old int64) { maxAdvertisement = old }(maxAdvertisement)
	maxAdvertisement = 1 << 20
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		_, _ = c.Read(make([]byte, 4096))
		for i := 0; ; i++ {
			line := fmt.Sprintf("%040x refs/heads/b%d\n", i+1, i)
			if i == 0 {
				line = fmt.Sprintf("%040x HEAD\x00multi_ack ofs-delta\n", 1)
			}
			if _, err := fmt.Fprintf(c, "%04x%s", len(line)+4, line); err != nil {
				return
			}
		}
	}()
	r := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{"git://" + ln.Addr().String() + "/r.git"}})
	_, err = r.List(&git.ListOptions{})
	if !errors.Is(err, ErrAdvertisementTooLarge) {
		t.Fatalf("listing an endless advertisement: %v, want ErrAdvertisementTooLarge", err)
	}
}
