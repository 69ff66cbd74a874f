package safetext

import (
	"regexp"
	"strings"
	"sync"
)

// Redacted is what RedactSecrets puts in a secret's place.
const Redacted = "[redacted]"

// secretREs match the secrets people paste into prompts: the tokens of the
// big hosts by their documented prefixes (GitHub, GitLab, Slack, OpenAI,
// Anthropic, Google, AWS, Stripe, npm, PyPI, Hugging Face), a JSON web
// token, a private key block, a URL's user:password, and a value given to
// a name that says it is secret (password=, api_key: …). Compiled on first
// use.
var secretREs = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)`),
		regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}|AIza[A-Za-z0-9_-]{30,}|(?:AKIA|ASIA)[A-Z0-9]{16}|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|npm_[A-Za-z0-9]{30,}|pypi-[A-Za-z0-9_-]{30,}|hf_[A-Za-z0-9]{30,})\b`),
		regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`),
		regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@`),
		regexp.MustCompile(`(?i)\b((?:api[_-]?key|apikey|access[_-]?key|secret(?:[_-]?key)?|client[_-]?secret|password|passwd|pwd|token|auth[_-]?token|bearer)["']?\s*[:=]\s*["']?)[^\s"',;]{6,}`),
		regexp.MustCompile(`(?i)\b(authorization:\s*(?:bearer|basic|token)\s+)[A-Za-z0-9._~+/=-]{8,}`),
	}
})

// RedactSecrets replaces what looks like a credential in s with Redacted,
// keeping the words around it (the name of a password= stays, its value
// goes). It errs on the side of redacting: a prompt loses a token-shaped
// word rather than keep a secret.
func RedactSecrets(s string) string {
	if !maybeSecret(s) {
		return s
	}
	res := secretREs()
	s = res[0].ReplaceAllString(s, Redacted)
	s = res[1].ReplaceAllString(s, Redacted)
	s = res[2].ReplaceAllString(s, Redacted)
	s = res[3].ReplaceAllString(s, "${1}"+Redacted+"@")
	s = res[4].ReplaceAllString(s, "${1}"+Redacted)
	s = res[5].ReplaceAllString(s, "${1}"+Redacted)
	return s
}

// maybeSecret is a quick look for anything a secret pattern starts with,
// so most texts skip the expressions.
func maybeSecret(s string) bool {
	l := strings.ToLower(s)
	for _, m := range []string{"-----begin", "gh", "github_pat_", "glpat-", "xox", "sk-", "aiza", "akia", "asia", "_live_", "_test_", "npm_", "pypi-", "hf_", "eyj", "://", "key", "secret", "pass", "pwd", "token", "bearer", "authorization"} {
		if strings.Contains(l, m) {
			return true
		}
	}
	return false
}
