package audit

import (
	"fmt"
	"net/netip"
	"regexp"
	"strings"
)

// How a script runs what it downloads.
var downloadRE = []*regexp.Regexp{
	// curl … | sh, | sudo bash, | /bin/zsh (not sh -c '…', which runs its
	// argument and reads the download as data)
	regexp.MustCompile(`(?m)\b(?:curl|wget)\b[^|\n]*\|[ \t]*(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+(?:\S+=\S*\s+)*)?(?:\S*/)?(?:ba|z|k|da|fi)?sh\b(?:[ \t]*$|[ \t]*[;&|)'"` + "`" + `]|[ \t]+-[abd-z]|[ \t]+-(?:[ \t]|$|-)|[ \t]+[^-\s])`),
	// curl … | python (bare, or reading the script from stdin: `-`)
	regexp.MustCompile(`(?m)\b(?:curl|wget)\b[^|\n]*\|[ \t]*(?:sudo\s+(?:-\S+\s+)*)?(?:\S*/)?(?:python[0-9.]*|perl|ruby|node|php)\b(?:[ \t]*$|[ \t]*[;&|)'"` + "`" + `]|[ \t]+-(?:[ \t]|$))`),
	// sh -c "$(curl …)", bash <(curl …), source <(curl …), eval "$(curl …)"
	regexp.MustCompile(`\b(?:(?:ba|z|k|da)?sh(?:\s+-\w+)*|source|eval)\s+["']?(?:\$\(|<\(|` + "`" + `)\s*(?:curl|wget)\b`),
	// python: exec(requests.get(…).text), exec(urlopen(…).read())
	regexp.MustCompile(`\b(?:exec|eval)\s*\(\s*(?:requests\.get|httpx\.get|urllib\.request\.urlopen|urlopen)\s*\(`),
}

// PowerShell: Invoke-Expression (iex) on a line that downloads.
var (
	iexRE     = regexp.MustCompile(`(?i)\b(?:iex|invoke-expression)\b`)
	psFetchRE = regexp.MustCompile(`(?i)downloadstring|downloadfile|invoke-webrequest|invoke-restmethod|\biwr\b|\birm\b|net\.webclient`)
)

// downloads finds the lines of text that run a download.
func downloads(text string, ix *lineIndex) []int {
	var lines []int
	seen := map[int]bool{}
	add := func(l int) {
		if !seen[l] {
			seen[l] = true
			lines = append(lines, l)
		}
	}
	// Each pattern needs one of a few words: a text without them is not
	// searched.
	fetches := containsAny(text, "curl", "wget")
	for i, re := range downloadRE {
		if i < 3 && !fetches || i == 3 && !containsAny(text, "exec", "eval") {
			continue
		}
		for _, loc := range re.FindAllStringIndex(text, -1) {
			if !comment(text, ix, loc[0]) {
				add(ix.line(loc[0]))
			}
		}
	}
	if lower := strings.ToLower(text); !containsAny(lower, "iex", "invoke-expression") {
		return lines
	}
	for _, loc := range iexRE.FindAllStringIndex(text, -1) {
		if line, _ := ix.lineText(text, loc[0]); psFetchRE.MatchString(line) && !comment(text, ix, loc[0]) {
			add(ix.line(loc[0]))
		}
	}
	return lines
}

// What a script reads that it should not send anywhere: credentials and
// the whole environment.
var (
	credRE = regexp.MustCompile(`(?m)\.ssh/id_[A-Za-z0-9_]+\b(?:[^.]|$)|\.ssh/?(?:["'\s)]|$)|\.aws/credentials|\.aws/?(?:["'\s)]|$)|\.netrc\b|\.git-credentials|\.docker/config\.json|\.kube/config|\.config/gh/hosts\.yml|\.npmrc\b|\.pypirc\b|/etc/shadow|/proc/(?:self|\d+)/environ`)
	envRE  = regexp.MustCompile(`(?m)(?:^|[\s;&|(` + "`" + `$])(?:printenv|env)\s*(?:$|[|>;&)` + "`" + `])|os\.environ\.items\(\)|dict\(\s*os\.environ\s*\)|json\.dumps\(\s*(?:dict\()?os\.environ|str\(\s*os\.environ\s*\)|JSON\.stringify\(\s*process\.env\s*\)|Object\.entries\(\s*process\.env\s*\)|(?i:(?:get-childitem|gci|dir|ls)\s+env:)`)
	sendRE = regexp.MustCompile(`\bcurl\b[^\n]*(?:\s-d\b|\s-d\S|--data|\s-F\b|--form|\s-T\b|--upload-file|-X\s*POST|--request\s+POST)` +
		`|\bwget\b[^\n]*--post-(?:data|file)` +
		`|(?m:^|[\s;&|(])(?:nc|ncat|netcat|socat|telnet)\s+(?:-\S+\s+)*[\w.-]+\s+\d+` +
		`|/dev/(?:tcp|udp)/` +
		`|\brequests\.(?:post|put|patch)\(|\bhttpx\.(?:post|put)\(|\burlopen\([^)\n]*data=|\bfetch\([^\n]*method:\s*["']POST|\baxios\.(?:post|put)\(` +
		`|(?i:invoke-(?:webrequest|restmethod)[^\n]*-method\s+(?:post|put))|\bsmtplib\b`)
)

// Where a script reaches an address.
var ipRE = regexp.MustCompile(`\b(?:https?|ftp|wss?|tcp|udp)://(\d{1,3}(?:\.\d{1,3}){3})\b` +
	`|/dev/(?:tcp|udp)/(\d{1,3}(?:\.\d{1,3}){3})\b` +
	`|\b(?:nc|ncat|netcat|telnet|ssh|scp|sftp|socat)\s[^\n]*?\b(\d{1,3}(?:\.\d{1,3}){3})\b` +
	`|@(\d{1,3}(?:\.\d{1,3}){3})\b`)

// scriptRules are the rules of a script: it runs a download, sends
// credentials or the environment out, reaches a public IP address.
func scriptRules(file, text string, ix *lineIndex, where string) []Finding {
	var out []Finding
	for _, l := range downloads(text, ix) {
		out = append(out, Finding{File: file, Line: l, Rule: RuleDownload, Severity: High,
			Message: where + "runs what it downloads: " + clip(oneLine(lineAt(text, ix, l)), 100)})
	}
	if send := firstCode(text, ix, sendRE); send >= 0 {
		sendLine := ix.line(send)
		for _, re := range []*regexp.Regexp{credRE, envRE} {
			for _, loc := range re.FindAllStringIndex(text, -1) {
				if comment(text, ix, loc[0]) {
					continue
				}
				start := loc[0]
				for start > 0 && !strings.ContainsRune(" \t\n\"'(=", rune(text[start-1])) {
					start-- // the whole path: ~/.ssh, $HOME/.aws/credentials
				}
				what := strings.TrimSpace(strings.Trim(text[start:loc[1]], " \t;&|()`\"'>"))
				out = append(out, Finding{File: file, Line: ix.line(loc[0]), Rule: RuleExfil, Severity: High,
					Message: where + fmt.Sprintf("reads %s and sends data out (line %d: %s)", what, sendLine, clip(oneLine(lineAt(text, ix, sendLine)), 60))})
			}
		}
	}
	for _, m := range ipRE.FindAllStringSubmatchIndex(text, -1) {
		if comment(text, ix, m[0]) {
			continue
		}
		for g := 2; g+1 < len(m); g += 2 {
			if m[g] < 0 {
				continue
			}
			ip := text[m[g]:m[g+1]]
			if why := publicIP(ip); why != "" {
				out = append(out, Finding{File: file, Line: ix.line(m[g]), Rule: RuleRawIP, Severity: Medium,
					Message: where + fmt.Sprintf("reaches %s %s, not a host name", why, ip)})
			}
		}
	}
	return dedupe(out)
}

// markdownDownloads: a Markdown file that tells the agent to run a
// download (many install guides do): worth knowing, low.
func markdownDownloads(file, text string, ix *lineIndex, where string) []Finding {
	var out []Finding
	for _, l := range downloads(text, ix) {
		out = append(out, Finding{File: file, Line: l, Rule: RuleDownload, Severity: Low,
			Message: where + "tells the agent to run what it downloads: " + clip(oneLine(lineAt(text, ix, l)), 100)})
	}
	return out
}

// publicIP says what kind of address s is when a script should not reach
// it by number ("a public IP address", "the cloud metadata address"), ""
// for one it may (loopback, private, documentation) or no address.
func publicIP(s string) string {
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is4() {
		return ""
	}
	if s == "169.254.169.254" {
		return "the cloud metadata address"
	}
	for _, p := range []string{"192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "100.64.0.0/10", "255.255.255.255/32"} {
		if netip.MustParsePrefix(p).Contains(a) {
			return ""
		}
	}
	if a.IsLoopback() || a.IsPrivate() || a.IsUnspecified() || a.IsLinkLocalUnicast() || a.IsMulticast() {
		return ""
	}
	return "the public IP address"
}

// comment reports whether off is on a comment line of a script (`#`,
// `//`, `::`, `REM`): a usage note, not what the script does.
func comment(text string, ix *lineIndex, off int) bool {
	line, _ := ix.lineText(text, off)
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "#!") || strings.HasPrefix(t, "//") ||
		strings.HasPrefix(t, "::") || strings.HasPrefix(strings.ToUpper(t), "REM ")
}

// firstCode is the offset of re's first match outside a comment line, -1
// for none.
func firstCode(text string, ix *lineIndex, re *regexp.Regexp) int {
	for _, loc := range re.FindAllStringIndex(text, -1) {
		if !comment(text, ix, loc[0]) {
			return loc[0]
		}
	}
	return -1
}

// lineAt is the text of line l.
func lineAt(text string, ix *lineIndex, l int) string {
	s, _ := ix.lineText(text, ix.starts[l-1])
	return s
}

// dedupe keeps one finding per file, line and rule: the first.
func dedupe(fs []Finding) []Finding {
	type key struct {
		line int
		rule string
	}
	seen := map[key]bool{}
	out := fs[:0]
	for _, f := range fs {
		if k := (key{f.Line, f.Rule}); !seen[k] {
			seen[k] = true
			out = append(out, f)
		}
	}
	return out
}
