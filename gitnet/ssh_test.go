package gitnet

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/storage/memory"
	"golang.org/x/crypto/ssh"
)

// sshGitServer serves git-upload-pack over ssh on a loopback port, to any
// key: enough of an ssh remote to list and fetch through megagit's ssh
// dialer. It returns the address.
func sshGitServer(t *testing.T) string {
	t.Helper()
	return sshServer(t, func(ch ssh.Channel, line string) uint32 {
		svc, arg, _ := strings.Cut(line, " ")
		cmd := exec.Command("git", strings.TrimPrefix(svc, "git-"), strings.Trim(arg, "'"))
		cmd.Stdin, cmd.Stdout, cmd.Stderr = ch, ch, ch.Stderr()
		if err := cmd.Run(); err != nil {
			return 1
		}
		return 0
	})
}

// sshServer is an ssh server on a loopback port that accepts any key and
// answers each exec request with run (given the command line; it returns
// the exit status). It returns the address.
func sshServer(t *testing.T, run func(ch ssh.Channel, line string) uint32) string {
	t.Helper()
	_, hostKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(hostKey)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(ssh.ConnMetadata, ssh.PublicKey) (*ssh.Permissions, error) { return nil, nil }}
	cfg.AddHostKey(signer)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serveSSH(c, cfg, run)
		}
	}()
	return ln.Addr().String()
}

func serveSSH(c net.Conn, cfg *ssh.ServerConfig, run func(ch ssh.Channel, line string) uint32) {
	defer c.Close()
	_, chans, reqs, err := ssh.NewServerConn(c, cfg)
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			_ = nc.Reject(ssh.UnknownChannelType, "session only")
			continue
		}
		ch, reqs, err := nc.Accept()
		if err != nil {
			return
		}
		go func() {
			defer ch.Close()
			for req := range reqs {
				if req.Type != "exec" || len(req.Payload) < 4 {
					_ = req.Reply(false, nil)
					continue
				}
				_ = req.Reply(true, nil)
				line := string(req.Payload[4 : 4+binary.BigEndian.Uint32(req.Payload)])
				sshExit(ch, run(ch, line))
				return
			}
		}()
	}
}

// TestSSHThroughDialer lists and fetches a repository over ssh through
// megagit's dialer (the proxy seam go-git's ssh transport offers).
func TestSSHThroughDialer(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	base := t.TempDir()
	repo := filepath.Join(base, "r.git")
	seed := filepath.Join(base, "seed")
	run(t, "", "git", "init", "-q", "-b", "main", seed)
	run(t, seed, "git", "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "one")
	run(t, "", "git", "clone", "-q", "--bare", seed, repo)
	want := strings.TrimSpace(run(t, repo, "git", "rev-parse", "main"))

	url := "ssh://git@" + sshGitServer(t) + repo
	st := memory.NewStorage()
	rem := git.NewRemote(st, &config.RemoteConfig{Name: "origin", URLs: []string{url}})
	auth := sshAuth(t)
	refs, err := rem.List(&git.ListOptions{Auth: auth})
	if err != nil {
		t.Fatalf("list %s: %v", url, err)
	}
	found := false
	for _, r := range refs {
		found = found || r.Name().Short() == "main" && r.Hash().String() == want
	}
	if !found {
		t.Fatalf("list %s: %v, want main at %s", url, refs, want)
	}
	if err := rem.Fetch(&git.FetchOptions{Auth: auth, RefSpecs: []config.RefSpec{"+refs/heads/*:refs/heads/*"}}); err != nil {
		t.Fatalf("fetch %s: %v", url, err)
	}
}
