package gitauth

import (
	"net/url"
	"regexp"
	"strings"
)

// Redacted replaces a secret in a printed URL.
const Redacted = "***"

var (
	// urlRE finds URLs in free text (a message, an error from go-git).
	urlRE = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.\-]*://[^\s"'<>` + "`" + `]+`)
	// paramRE finds a query parameter with its separator: name, value.
	paramRE = regexp.MustCompile(`[?&;]([^=&#;?\s"'<>()]*)=[^&#;?\s"'<>()]*`)
)

// secretWords are what the name of a query parameter carrying a
// credential holds, read without case, - and _: access_token, AccessToken,
// X-Goog-Signature, X-Amz-Credential, api-key, client_secret, passwd, auth.
var secretWords = []string{"token", "secret", "sig", "key", "pass", "auth", "credential"}

// secretParam reports whether a query parameter's name (as written,
// perhaps %-encoded) names a credential.
func secretParam(name string) bool {
	if n, err := url.QueryUnescape(name); err == nil {
		name = n
	}
	name = strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(name))
	for _, w := range secretWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// redactParams is u with the value of each credential parameter ***.
func redactParams(u string) string {
	return paramRE.ReplaceAllStringFunc(u, func(p string) string {
		name, _, _ := strings.Cut(p[1:], "=")
		if !secretParam(name) {
			return p
		}
		return p[:1] + name + "=" + Redacted
	})
}

// dropParams is u without its credential parameters, separators included.
func dropParams(u string) string {
	return paramRE.ReplaceAllStringFunc(u, func(p string) string {
		if name, _, _ := strings.Cut(p[1:], "="); secretParam(name) {
			return ""
		}
		return p
	})
}

// Redact strips the secrets from every URL in s, so a remote's URL can be
// printed in a message, a log line, a table or JSON: the user info of an
// http(s) URL (of any URL but ssh's) becomes *** whole, since a token is
// often the user name (https://ghp_xxx@github.com, https://TOKEN:x-oauth-basic@...,
// a JWT) and no rule tells such a name from a person's; the password of an
// ssh URL becomes *** (its user, git@, is a login, not a secret: the key
// is); and a credential in the query string (?access_token=...) becomes
// ***. Everything else is left as it is; a URL that is already redacted
// stays the same.
func Redact(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlRE.ReplaceAllStringFunc(s, redactURL)
}

func redactURL(u string) string {
	// Punctuation after a URL in a sentence ("clone URL: Get ...") is not
	// part of it: kept after the URL, never taken as part of a secret.
	trimmed := strings.TrimRight(u, ":,.")
	if trimmed != u && strings.Contains(trimmed, "://") {
		return redactURL(trimmed) + u[len(trimmed):]
	}
	if ui, ok := userInfoOf(u); ok {
		switch {
		case !ui.ssh:
			u = u[:ui.start] + Redacted + u[ui.at:]
		case ui.hasPass && ui.pass != "":
			u = u[:ui.start] + ui.user + ":" + Redacted + u[ui.at:]
		}
	}
	return redactParams(u)
}

// RedactError is err with Redact applied to its message, keeping what
// errors.Is and errors.As find in it (nil stays nil).
func RedactError(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if red := Redact(msg); red != msg {
		return redactedError{msg: red, err: err}
	}
	return err
}

type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }

// Strip is a URL without its secrets, to be stored (a lockfile, a commit)
// and used again later with credentials from elsewhere (MEGAGIT_GIT_TOKEN,
// git's credential helpers): the user info of an http(s) URL (of any URL
// but ssh's) goes with its @, the password of an ssh URL with its colon
// (the user stays: ssh logs in as it), and a credential in the query
// string with its parameter. A URL without secrets (ssh's
// git@host:org/repo, a path) is returned as it is.
func Strip(rawURL string) string {
	if !strings.Contains(rawURL, "://") {
		return rawURL
	}
	u := rawURL
	if ui, ok := userInfoOf(u); ok {
		switch {
		case !ui.ssh || ui.user == Redacted:
			u = u[:ui.start] + u[ui.at+1:]
		case ui.hasPass:
			u = u[:ui.start] + ui.user + u[ui.at:]
		}
	}
	q := strings.IndexByte(u, '?')
	if q < 0 {
		return u
	}
	// Drop credential parameters; the first one left starts with '?'.
	rest := dropParams("&" + u[q+1:])
	rest = strings.TrimPrefix(rest, "&")
	if rest == "" || strings.HasPrefix(rest, "#") {
		return u[:q] + rest
	}
	return u[:q] + "?" + rest
}

// userInfo is the user:password@ part of a URL: where it starts (after
// "://"), where its @ is, its user and password, and whether the URL is
// ssh's (ssh, git+ssh, ssh+git), whose user is a login name.
type userInfo struct {
	start, at  int
	user, pass string
	hasPass    bool
	ssh        bool
}

// userInfoOf finds u's user info (u holds "://"), if it has any: the last
// @ before the host ends (at the first /, ? or #).
func userInfoOf(u string) (userInfo, bool) {
	i := strings.Index(u, "://") + 3
	host := len(u)
	if j := strings.IndexAny(u[i:], "/?#"); j >= 0 {
		host = i + j
	}
	at := strings.LastIndex(u[i:host], "@")
	if at < 0 {
		return userInfo{}, false
	}
	at += i
	user, pass, hasPass := strings.Cut(u[i:at], ":")
	switch strings.ToLower(u[:i-3]) {
	case "ssh", "git+ssh", "ssh+git":
		return userInfo{start: i, at: at, user: user, pass: pass, hasPass: hasPass, ssh: true}, true
	}
	return userInfo{start: i, at: at, user: user, pass: pass, hasPass: hasPass}, true
}
