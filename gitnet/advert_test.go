package gitnet

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/storage/memory"
	"golang.org/x/crypto/ssh"
)

// writeRefs writes a list of refs of about size bytes, ended by a flush,
// as git-upload-pack advertises it.
func writeRefs(w io.Writer, size int64) error {
	var n int64
	for i := 0; n < size; i++ {
		line := fmt.Sprintf("%040x refs/heads/b%d\n", i, i)
		if i == 0 {
			line = fmt.Sprintf("%040x HEAD\x00multi_ack ofs-delta side-band-64k\n", 1)
		}
		k, err := fmt.Fprintf(w, "%04x%s", len(line)+4, line)
		if err != nil {
			return err
		}
		n += int64(k)
	}
	_, err := io.WriteString(w, "0000")
	return err
}

// lowerCap sets maxAdvertisement to 1 MiB for the test.
func lowerCap(t *testing.T) {
	old := maxAdvertisement
	maxAdvertisement = 1 << 20
	t.Cleanup(func() { maxAdvertisement = old })
}

// wantTooLarge checks a list of a server advertising 4 MiB of refs under
// a 1 MiB cap: refused, naming the cap.
func wantTooLarge(t *testing.T, url string, err error) {
	t.Helper()
	if !errors.Is(err, ErrAdvertisementTooLarge) {
		t.Fatalf("listing 4 MiB of refs from %s under a 1 MiB cap: %v, want ErrAdvertisementTooLarge", url, err)
	}
	if !strings.Contains(err.Error(), "1 MiB") {
		t.Errorf("error %q does not name the cap", err)
	}
}

// An http server whose list of refs passes the cap is refused, as a
// git:// one is; the pack that follows a list is not capped
// (TestHTTPListUnderCap, and internal/cli's http clones).
func TestHTTPAdvertisementCapped(t *testing.T) {
	lowerCap(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/info/refs") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
		_, _ = io.WriteString(w, "001e# service=git-upload-pack\n0000")
		_ = writeRefs(w, 4<<20)
	}))
	defer srv.Close()
	url := srv.URL + "/r.git"
	_, err := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{url}}).List(&git.ListOptions{})
	wantTooLarge(t, url, err)
}

// A list of refs under the cap is listed whole over http.
func TestHTTPListUnderCap(t *testing.T) {
	lowerCap(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
		_, _ = io.WriteString(w, "001e# service=git-upload-pack\n0000")
		_ = writeRefs(w, 512<<10)
	}))
	defer srv.Close()
	refs, err := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{srv.URL + "/r.git"}}).List(&git.ListOptions{})
	if err != nil || len(refs) < 1000 {
		t.Fatalf("list of 512 KiB of refs: %d refs, %v", len(refs), err)
	}
}

// An ssh server whose list of refs passes the cap is refused too.
func TestSSHAdvertisementCapped(t *testing.T) {
	lowerCap(t)
	addr := sshServer(t, func(ch ssh.Channel, _ string) uint32 {
		_ = writeRefs(ch, 4<<20)
		return 0
	})
	url := "ssh://git@" + addr + "/r.git"
	_, err := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{url}}).List(&git.ListOptions{Auth: sshAuth(t)})
	wantTooLarge(t, url, err)
	if n := countMeters(); n != 0 {
		t.Errorf("%d ssh meters left registered after the session", n)
	}
}

// sshExit ends an exec'd command with its status.
func sshExit(ch ssh.Channel, status uint32) {
	_, _ = ch.SendRequest("exit-status", false, binary.BigEndian.AppendUint32(nil, status))
	_ = ch.CloseWrite()
	_, _ = io.Copy(io.Discard, ch)
}

// countMeters is how many ssh meters are registered.
func countMeters() int {
	n := 0
	sshMeters.Range(func(any, any) bool { n++; return true })
	return n
}

// The cap is on the list of refs only: a pack larger than it is fetched
// over ssh.
func TestSSHPackNotCapped(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	lowerCap(t)
	base := t.TempDir()
	seed, repo := filepath.Join(base, "seed"), filepath.Join(base, "r.git")
	run(t, "", "git", "init", "-q", "-b", "main", seed)
	big := make([]byte, 2<<20)
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(seed, "big.bin"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, seed, "git", "add", "big.bin")
	run(t, seed, "git", "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-q", "-m", "big")
	run(t, "", "git", "clone", "-q", "--bare", seed, repo)
	url := "ssh://git@" + sshGitServer(t) + repo
	rem := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{url}})
	if err := rem.Fetch(&git.FetchOptions{Auth: sshAuth(t), RefSpecs: []config.RefSpec{"+refs/heads/*:refs/heads/*"}}); err != nil {
		t.Fatalf("fetch of a 2 MiB pack over ssh under a 1 MiB cap on the list of refs: %v", err)
	}
}
