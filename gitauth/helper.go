package gitauth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// helperTimeout bounds one credential helper run, so a helper that waits
// for a prompt nobody answers cannot hang a sync or a hook. Tests shorten it.
var helperTimeout = 10 * time.Second

// errHelperTimeout marks a helper that did not answer in time: unlike a
// failing helper (which git skips), it stops the search.
var errHelperTimeout = errors.New("did not answer")

// gitCredential is one credential in git's helper protocol
// (git-credential(7)): the URL it is for and what helpers filled in.
type gitCredential struct {
	protocol, host, path string // path is sent only with credential.useHttpPath
	username, password   string
}

// fillCredential asks the helpers in order until one answers with both a
// username and a password, like git's credential_fill without the final
// prompt. What one helper answers is passed on to the next. A helper that
// fails is skipped and described in notes; one that times out or says
// quit=true ends the search with an error.
func fillCredential(helpers []string, c gitCredential) (gitCredential, bool, []string, error) {
	var notes []string
	for _, h := range helpers {
		reply, err := runHelper(h, "get", c)
		if errors.Is(err, errHelperTimeout) {
			return c, false, notes, err
		}
		if err != nil {
			notes = append(notes, err.Error())
			continue
		}
		if v, ok := reply["username"]; ok {
			c.username = v
		}
		if v, ok := reply["password"]; ok {
			c.password = v
		}
		if exp, err := strconv.ParseInt(reply["password_expiry_utc"], 10, 64); err == nil && exp < time.Now().Unix() {
			c.password = ""
		}
		if c.username != "" && c.password != "" {
			return c, true, notes, nil
		}
		if gitBool(reply["quit"], false) {
			return c, false, notes, fmt.Errorf("credential helper %q told megagit to stop asking (quit=true)", h)
		}
	}
	return c, false, notes, nil
}

// tellHelpers sends store (after the remote accepted the credential) or
// erase (after it refused it) to every helper, as git does; their answers
// and failures are ignored, as git ignores them.
func tellHelpers(helpers []string, action string, c gitCredential) {
	for _, h := range helpers {
		_, _ = runHelper(h, action, c)
	}
}

// runHelper runs one helper for action (get, store or erase) and returns
// its key=value answer. The helper gets the credential on a pipe, no
// terminal (its own session, GIT_TERMINAL_PROMPT=0) and helperTimeout.
func runHelper(helper, action string, c gitCredential) (map[string]string, error) {
	input, err := c.encode(action != "get")
	if err != nil {
		return nil, fmt.Errorf("credential helper %q: %w", helper, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), helperTimeout)
	defer cancel()
	cmd, err := helperCommand(ctx, helper, action)
	if err != nil {
		return nil, err
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdin = strings.NewReader(input)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	// A new session has no controlling terminal, so /dev/tty cannot be
	// opened; killing the process group also ends a shell helper's children.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("credential helper %q %w within %s (megagit gives helpers no terminal to prompt on)", helper, errHelperTimeout, helperTimeout)
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		if msg != "" {
			return nil, fmt.Errorf("credential helper %q: %v: %s", helper, err, msg)
		}
		return nil, fmt.Errorf("credential helper %q: %v", helper, err)
	}
	return parseCredentialReply(stdout.String()), nil
}

// helperCommand turns a credential.helper value into a command, as
// gitcredentials(7) describes: "!cmd" is shell code; an absolute path is a
// program; anything else NAME runs git-credential-NAME. Arguments are split
// shell-style and the action comes last.
func helperCommand(ctx context.Context, helper, action string) (*exec.Cmd, error) {
	if rest, ok := strings.CutPrefix(helper, "!"); ok {
		return exec.CommandContext(ctx, "sh", "-c", rest+" "+action), nil
	}
	args, err := splitShellWords(helper)
	if err != nil || len(args) == 0 {
		return nil, fmt.Errorf("credential helper %q: cannot parse it: %v", helper, err)
	}
	prog := args[0]
	if !filepath.IsAbs(prog) {
		prog = findHelper("git-credential-" + prog)
		if prog == "" {
			return nil, fmt.Errorf("credential helper %q: git-credential-%s is not in git's exec path or PATH", helper, args[0])
		}
	}
	return exec.CommandContext(ctx, prog, append(args[1:], action)...), nil
}

// gitExecDirs are where git installs usually keep git-credential-*
// programs (Debian, Fedora, source builds, Homebrew, Apple's developer tools).
var gitExecDirs = []string{
	"/usr/lib/git-core", "/usr/libexec/git-core", "/usr/local/libexec/git-core",
	"/opt/homebrew/opt/git/libexec/git-core", "/usr/local/opt/git/libexec/git-core",
	"/Library/Developer/CommandLineTools/usr/libexec/git-core",
	"/Applications/Xcode.app/Contents/Developer/usr/libexec/git-core",
}

// findHelper looks for a helper program where git would: its exec path
// (GIT_EXEC_PATH, else the usual install folders), then PATH.
func findHelper(name string) string {
	dirs := gitExecDirs
	if d := os.Getenv("GIT_EXEC_PATH"); d != "" {
		dirs = []string{d}
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	return p
}

// encode writes the credential in the helper protocol; the password only
// goes to store and erase.
func (c gitCredential) encode(withPassword bool) (string, error) {
	var b strings.Builder
	put := func(k, v string) error {
		if v == "" {
			return nil
		}
		if strings.ContainsAny(v, "\n\x00") {
			return fmt.Errorf("credential %s contains a newline or NUL", k)
		}
		b.WriteString(k + "=" + v + "\n")
		return nil
	}
	fields := [][2]string{{"protocol", c.protocol}, {"host", c.host}, {"path", c.path}, {"username", c.username}}
	if withPassword {
		fields = append(fields, [2]string{"password", c.password})
	}
	for _, f := range fields {
		if err := put(f[0], f[1]); err != nil {
			return "", err
		}
	}
	b.WriteString("\n")
	return b.String(), nil
}

// parseCredentialReply reads key=value lines up to a blank line or the end.
func parseCredentialReply(out string) map[string]string {
	reply := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if line == "" {
			break
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			reply[k] = v
		}
	}
	return reply
}

// splitShellWords splits a helper string into words like sh does for
// quotes and backslashes (no expansions).
func splitShellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case ch == '\\':
			inWord = true
			if i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			}
		case ch == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case ch == '"':
			inWord = true
			for i++; ; i++ {
				if i >= len(s) {
					return nil, errors.New("unterminated double quote")
				}
				if s[i] == '"' {
					break
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\\\"$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
		default:
			inWord = true
			cur.WriteByte(ch)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
