package registry

import (
	"bufio"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
)

// Environment variables for HTTPS remotes.
const (
	EnvGitToken    = "MEGAGIT_GIT_TOKEN"    // a personal access token
	EnvGitUsername = "MEGAGIT_GIT_USERNAME" // defaults to x-access-token
	EnvSSHKey      = "MEGAGIT_SSH_KEY"      // a private key file to use instead of the agent
	EnvSSHPass     = "MEGAGIT_SSH_PASSPHRASE"
)

// AuthFor picks credentials for a remote URL from what git users already
// have, without running git:
//   - ssh: MEGAGIT_SSH_KEY, else the SSH agent (SSH_AUTH_SOCK), else the first
//     of ~/.ssh/id_ed25519, id_ecdsa, id_rsa; host keys are checked against
//     ~/.ssh/known_hosts by go-git.
//   - http(s): user:password in the URL, else MEGAGIT_GIT_TOKEN (with
//     MEGAGIT_GIT_USERNAME), else a matching line of git's credential store
//     (~/.git-credentials or $XDG_CONFIG_HOME/git/credentials), else none.
//   - file and local paths need none.
func AuthFor(rawURL string) (transport.AuthMethod, error) {
	ep, err := transport.NewEndpoint(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%w: remote URL %q: %v", ErrInvalid, rawURL, err)
	}
	switch ep.Protocol {
	case "ssh":
		return sshAuth(ep)
	case "http", "https":
		if ep.User != "" || ep.Password != "" {
			return nil, nil // go-git uses the URL's own credentials
		}
		if tok := os.Getenv(EnvGitToken); tok != "" {
			user := os.Getenv(EnvGitUsername)
			if user == "" {
				user = "x-access-token"
			}
			return &githttp.BasicAuth{Username: user, Password: tok}, nil
		}
		if user, pass, ok := storedCredential(ep); ok {
			return &githttp.BasicAuth{Username: user, Password: pass}, nil
		}
	}
	return nil, nil
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
