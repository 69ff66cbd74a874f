package gitauth

import (
	"bufio"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"github.com/megagit/megagit/errkind"
)

// Environment variables for HTTPS remotes.
const (
	EnvGitToken    = "MEGAGIT_GIT_TOKEN"    // a personal access token
	EnvGitUsername = "MEGAGIT_GIT_USERNAME" // defaults to x-access-token
	EnvSSHKey      = "MEGAGIT_SSH_KEY"      // a private key file to use instead of the agent
	EnvSSHPass     = "MEGAGIT_SSH_PASSPHRASE"
)

// For is ForRepo outside any repository (a clone): only the system and
// global git config are read.
func For(rawURL string) (transport.AuthMethod, error) {
	return ForRepo("", rawURL)
}

// ForRepo picks credentials for a remote URL from what git users already
// have, without running git; gitDir ("" for none) adds the repository's
// .git/config to the config git would read.
//   - ssh: MEGAGIT_SSH_KEY, else the SSH agent (SSH_AUTH_SOCK), else the first
//     of ~/.ssh/id_ed25519, id_ecdsa, id_rsa; host keys are checked against
//     ~/.ssh/known_hosts by go-git.
//   - http(s): user:password in the URL, else MEGAGIT_GIT_TOKEN (with
//     MEGAGIT_GIT_USERNAME), else git's credential helpers (credential.helper
//     and credential.<url>.helper, run with the git-credential protocol),
//     else a matching line of git's credential store (~/.git-credentials or
//     $XDG_CONFIG_HOME/git/credentials), else none.
//   - file and local paths need none.
func ForRepo(gitDir, rawURL string) (transport.AuthMethod, error) {
	rc, err := Lookup(gitDir, rawURL)
	if err != nil {
		return nil, err
	}
	return rc.Auth, nil
}

// Creds is the credential of one remote and where it came from, so the
// remote's answer can be reported back to the credential helpers (Done).
type Creds struct {
	// Auth goes to go-git's fetch, push, list or clone options; nil when
	// the remote needs none or go-git finds it itself.
	Auth    transport.AuthMethod
	helpers []string      // the helpers to tell, when they supplied it
	cred    gitCredential // what they supplied
	notes   []string      // helpers that failed while megagit looked
	key     string        // its credCache key, when cached
	stored  bool          // store was sent already
}

// Lookup is ForRepo with what Done needs to answer the helpers: it asks
// them afresh on every call (a clone, which has no repository yet to cache
// for).
func Lookup(gitDir, rawURL string) (*Creds, error) {
	ep, err := transport.NewEndpoint(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%w: remote URL %q: %v", errkind.ErrInvalid, rawURL, err)
	}
	switch ep.Protocol {
	case "ssh":
		a, err := sshAuth(ep)
		if err != nil {
			return nil, err
		}
		return &Creds{Auth: a}, nil
	case "http", "https":
		if ep.User != "" || ep.Password != "" {
			return &Creds{}, nil // go-git uses the URL's own credentials
		}
		if tok := os.Getenv(EnvGitToken); tok != "" {
			user := os.Getenv(EnvGitUsername)
			if user == "" {
				user = "x-access-token"
			}
			return &Creds{Auth: &githttp.BasicAuth{Username: user, Password: tok}}, nil
		}
		return helperAuth(gitDir, ep)
	}
	return &Creds{}, nil
}

// helperAuth asks git's credential helpers, then falls back to reading
// the credential store files directly (which also serves users of the
// store helper on machines without git).
func helperAuth(gitDir string, ep *transport.Endpoint) (*Creds, error) {
	t := targetOf(ep)
	set := settingsFor(readCredentialConfig(gitDir), t)
	rc := &Creds{}
	if len(set.helpers) > 0 {
		c := gitCredential{protocol: t.protocol, host: t.host, username: set.username}
		if set.useHTTPPath {
			c.path = t.path
		}
		c, ok, notes, err := fillCredential(set.helpers, c)
		if err != nil {
			return nil, err
		}
		rc.notes = notes
		if ok {
			rc.Auth = &githttp.BasicAuth{Username: c.username, Password: c.password}
			rc.helpers, rc.cred = set.helpers, c
			return rc, nil
		}
	}
	if user, pass, ok := storedCredential(ep); ok {
		rc.Auth = &githttp.BasicAuth{Username: user, Password: pass}
	}
	return rc, nil
}

func targetOf(ep *transport.Endpoint) credentialTarget {
	t := credentialTarget{
		protocol: strings.ToLower(ep.Protocol),
		hostname: strings.ToLower(ep.Host),
		path:     strings.Trim(ep.Path, "/"),
		user:     ep.User,
	}
	t.port = effectivePort(t.protocol, "")
	t.host = t.hostname
	if ep.Port != 0 && ep.Port != t.port {
		t.port = ep.Port
		t.host = fmt.Sprintf("%s:%d", t.hostname, ep.Port)
	}
	return t
}

// credCache keeps helper answers for the life of the process, so one sync
// (fetch, push, fetch again) asks the helpers and stores the result once.
var credCache = struct {
	sync.Mutex
	m map[string]*Creds
}{m: map[string]*Creds{}}

// Cached is Lookup for the repository at gitDir, through a cache that
// lives as long as the process: one sync asks the helpers once.
func Cached(gitDir, rawURL string) (*Creds, error) {
	key := gitDir + "\x00" + rawURL
	credCache.Lock()
	defer credCache.Unlock()
	if rc, ok := credCache.m[key]; ok {
		return rc, nil
	}
	rc, err := Lookup(gitDir, rawURL)
	if err != nil {
		return nil, err
	}
	if len(rc.helpers) > 0 {
		credCache.m[key] = rc
		rc.key = key
	}
	return rc, nil
}

// Done reports how the remote took the credential, as git does: store
// after success, erase after an authentication failure (HTTP 401). It
// returns err, for a failed authentication with the helpers that could
// not be run named.
func (rc *Creds) Done(err error) error {
	credCache.Lock()
	defer credCache.Unlock()
	switch {
	case err == nil:
		if len(rc.helpers) > 0 && !rc.stored {
			rc.stored = true
			tellHelpers(rc.helpers, "store", rc.cred)
		}
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed):
		if len(rc.helpers) > 0 && errors.Is(err, transport.ErrAuthenticationRequired) {
			tellHelpers(rc.helpers, "erase", rc.cred)
			delete(credCache.m, rc.key)
		}
		if len(rc.notes) > 0 {
			err = fmt.Errorf("%w (%s)", err, strings.Join(rc.notes, "; "))
		}
	}
	return err
}

func sshAuth(ep *transport.Endpoint) (transport.AuthMethod, error) {
	user := ep.User
	if user == "" {
		user = "git"
	}
	if key := os.Getenv(EnvSSHKey); key != "" {
		a, err := gitssh.NewPublicKeysFromFile(user, key, os.Getenv(EnvSSHPass))
		if err != nil {
			return nil, fmt.Errorf("ssh key %s: %w", key, err)
		}
		return a, nil
	}
	if os.Getenv("SSH_AUTH_SOCK") != "" {
		if a, err := gitssh.NewSSHAgentAuth(user); err == nil {
			return a, nil
		}
	}
	home, _ := os.UserHomeDir()
	for _, name := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
		p := filepath.Join(home, ".ssh", name)
		if _, err := os.Stat(p); err != nil {
			continue
		}
		a, err := gitssh.NewPublicKeysFromFile(user, p, os.Getenv(EnvSSHPass))
		if err != nil {
			return nil, fmt.Errorf("ssh key %s (set %s if it has a passphrase, or load it into ssh-agent): %w", p, EnvSSHPass, err)
		}
		return a, nil
	}
	return nil, nil // go-git falls back to the agent and reports what failed
}

// storedCredential reads git's plain credential store files
// (https://user:token@host lines) for the endpoint's host.
func storedCredential(ep *transport.Endpoint) (string, string, bool) {
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" {
		xdg = filepath.Join(home, ".config")
	}
	for _, file := range []string{filepath.Join(home, ".git-credentials"), filepath.Join(xdg, "git", "credentials")} {
		f, err := os.Open(file)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			u, err := url.Parse(strings.TrimSpace(sc.Text()))
			if err != nil || u.User == nil || u.Scheme != ep.Protocol || u.Hostname() != ep.Host {
				continue
			}
			pass, _ := u.User.Password()
			f.Close()
			return u.User.Username(), pass, true
		}
		f.Close()
	}
	return "", "", false
}
