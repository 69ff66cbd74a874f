package gitauth

import (
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
)

// credentialTarget is the URL a credential is for, split the way git's
// urlmatch compares it against credential.<url>.* config keys.
type credentialTarget struct {
	protocol string // lower case
	hostname string // lower case, no port
	port     int    // effective port (the scheme's default when the URL has none)
	host     string // host[:port] as the credential protocol sends it
	path     string // no leading or trailing slash
	user     string
}

// credentialSettings is what git's config says about credentials for one
// URL: the helpers to ask, in order, and the defaults they get.
type credentialSettings struct {
	helpers     []string
	username    string
	useHTTPPath bool
}

// credentialEntry is one credential.* config value, in the order git reads it.
type credentialEntry struct {
	url   string // "" for credential.KEY, the pattern for credential.URL.KEY
	key   string // lower case
	value string
}

// gitConfigFiles lists the config files git reads, lowest precedence
// first: system, global (XDG, then ~/.gitconfig), then the repository's.
func gitConfigFiles(gitDir string) []string {
	var files []string
	if !gitBool(os.Getenv("GIT_CONFIG_NOSYSTEM"), false) {
		if f := os.Getenv("GIT_CONFIG_SYSTEM"); f != "" {
			files = append(files, f)
		} else {
			files = append(files, "/etc/gitconfig")
		}
	}
	home, _ := os.UserHomeDir()
	if f := os.Getenv("GIT_CONFIG_GLOBAL"); f != "" {
		files = append(files, expandTilde(f, home))
	} else {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" {
			xdg = filepath.Join(home, ".config")
		}
		files = append(files, filepath.Join(xdg, "git", "config"))
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	if gitDir != "" {
		files = append(files, filepath.Join(gitDir, "config"))
	}
	return files
}

// readCredentialConfig collects the credential.* values of every config
// file git would read, then those of GIT_CONFIG_COUNT/KEY_n/VALUE_n.
// Files that are missing or that go-git cannot parse are skipped.
//
// go-git's parser groups a file's values by section, so within one file
// credential.KEY values come before credential.URL.KEY ones whatever their
// order in the file; across files git's order is kept.
func readCredentialConfig(gitDir string) []credentialEntry {
	var out []credentialEntry
	home, _ := os.UserHomeDir()
	for _, f := range gitConfigFiles(gitDir) {
		out = readCredentialFile(f, home, 0, out)
	}
	n, _ := strconv.Atoi(os.Getenv("GIT_CONFIG_COUNT"))
	for i := 0; i < n && i < 1000; i++ {
		key := os.Getenv("GIT_CONFIG_KEY_" + strconv.Itoa(i))
		section, rest, ok := strings.Cut(key, ".")
		if !ok || !strings.EqualFold(section, "credential") {
			continue
		}
		e := credentialEntry{key: strings.ToLower(rest), value: os.Getenv("GIT_CONFIG_VALUE_" + strconv.Itoa(i))}
		if j := strings.LastIndex(rest, "."); j >= 0 {
			e.url, e.key = rest[:j], strings.ToLower(rest[j+1:])
		}
		out = append(out, e)
	}
	return out
}

func readCredentialFile(file, home string, depth int, out []credentialEntry) []credentialEntry {
	f, err := os.Open(file)
	if err != nil {
		return out
	}
	defer f.Close()
	cfg := gitconfig.New()
	if err := gitconfig.NewDecoder(f).Decode(cfg); err != nil {
		return out
	}
	for _, s := range cfg.Sections {
		switch {
		case s.IsName("credential"):
			for _, o := range s.Options {
				out = append(out, credentialEntry{key: strings.ToLower(o.Key), value: o.Value})
			}
			for _, ss := range s.Subsections {
				for _, o := range ss.Options {
					out = append(out, credentialEntry{url: ss.Name, key: strings.ToLower(o.Key), value: o.Value})
				}
			}
		case s.IsName("include") && depth < 10:
			// [include] path = FILE, relative to the including file.
			for _, p := range s.Options.GetAll("path") {
				p = expandTilde(p, home)
				if !filepath.IsAbs(p) {
					p = filepath.Join(filepath.Dir(file), p)
				}
				out = readCredentialFile(p, home, depth+1, out)
			}
		}
	}
	return out
}

// settingsFor applies the entries that match t, in order: helper values
// append (an empty one clears the list, as in git), the others take the
// last value.
func settingsFor(entries []credentialEntry, t credentialTarget) credentialSettings {
	var s credentialSettings
	for _, e := range entries {
		if e.url != "" && !t.matches(e.url) {
			continue
		}
		switch e.key {
		case "helper":
			if e.value == "" {
				s.helpers = nil
			} else {
				s.helpers = append(s.helpers, e.value)
			}
		case "username":
			s.username = e.value
		case "usehttppath":
			s.useHTTPPath = gitBool(e.value, true)
		}
	}
	return s
}

// matches reports whether a credential.<url> pattern applies to t, like
// git's urlmatch: the scheme must be equal, the host equal (a "*" matches
// one dot-separated label), the port equal, a user in the pattern equal,
// and the pattern's path a prefix of t's at a "/" boundary. A pattern
// without "://" is a partial URL (host[/path]) that fits any scheme.
func (t credentialTarget) matches(pattern string) bool {
	if !strings.Contains(pattern, "://") {
		host, p, _ := strings.Cut(pattern, "/")
		return strings.EqualFold(host, t.host) && (p == "" || strings.Trim(p, "/") == t.path)
	}
	u, err := url.Parse(pattern)
	if err != nil || !strings.EqualFold(u.Scheme, t.protocol) {
		return false
	}
	if u.User != nil && u.User.Username() != t.user {
		return false
	}
	if !hostMatches(strings.ToLower(u.Hostname()), t.hostname) || effectivePort(u.Scheme, u.Port()) != t.port {
		return false
	}
	p := strings.Trim(u.Path, "/")
	return p == "" || t.path == p || strings.HasPrefix(t.path, p+"/")
}

func hostMatches(pattern, host string) bool {
	pl, hl := strings.Split(pattern, "."), strings.Split(host, ".")
	if len(pl) != len(hl) {
		return false
	}
	for i := range pl {
		if ok, err := path.Match(pl[i], hl[i]); err != nil || !ok {
			return false
		}
	}
	return true
}

func effectivePort(scheme, port string) int {
	if n, err := strconv.Atoi(port); err == nil {
		return n
	}
	switch strings.ToLower(scheme) {
	case "http":
		return 80
	case "https":
		return 443
	}
	return 0
}

// gitBool reads a git config boolean; a key with no value means empty.
func gitBool(v string, empty bool) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "":
		return empty
	case "true", "yes", "on", "1":
		return true
	}
	return false
}

func expandTilde(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}
