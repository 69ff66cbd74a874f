package gitauth

import (
	"regexp"
	"strings"
)

// Redacted replaces a secret in a printed URL.
const Redacted = "***"

var (
	// urlRE finds URLs in free text (a message, an error from go-git).
	urlRE = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.\-]*://[^\s"'<>` + "`" + `]+`)
	// secretParamRE finds query parameters that carry a credential.
	secretParamRE = regexp.MustCompile(`(?i)([?&;](?:access_token|private_token|oauth_token|token|api_key|apikey|key|secret|client_secret|password|passwd|pass|auth|sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token)=)[^&#;?\s"'<>()]*`)
	// tokenUserRE is a user name that is really a token (GitHub, GitLab
	// and Bitbucket style, or long enough that no person types it).
	tokenUserRE = regexp.MustCompile(`^(?:gh[pousr]_|github_pat_|glpat-|x-token-auth|x-access-token|oauth2)|^[A-Za-z0-9_\-]{20,}$`)
)

// Redact strips the secrets from every URL in s, so a remote's URL can be
// printed in a message, a log line, a table or JSON: the password of
// https://user:pass@host becomes ***, as does a token used as the user
// name (https://ghp_xxx@github.com) and a credential in the query string
// (?access_token=...). Everything else is left as it is; a URL that is
// already redacted stays the same.
func Redact(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return urlRE.ReplaceAllStringFunc(s, redactURL)
}

func redactURL(u string) string {
	i := strings.Index(u, "://") + 3
	host := len(u)
	if j := strings.IndexAny(u[i:], "/?#"); j >= 0 {
		host = i + j
	}
	if at := strings.LastIndex(u[i:host], "@"); at >= 0 {
		at += i
		user, pass, hasPass := strings.Cut(u[i:at], ":")
		switch {
		case hasPass && pass != "":
			u = u[:i] + user + ":" + Redacted + u[at:]
		case !hasPass && tokenUserRE.MatchString(user):
			u = u[:i] + Redacted + u[at:]
		}
	}
	return secretParamRE.ReplaceAllString(u, "${1}"+Redacted)
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
