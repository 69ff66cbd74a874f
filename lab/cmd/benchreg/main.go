// Command benchreg is scripts/bench-hook.sh's helper: it writes a benchmark
// registry's skills and prompts from a pairs file, rotates the prompt (and
// edits a skill) between timed runs, measures a command's peak RSS and
// prints the Markdown table. It is not part of megagit.
//
//	benchreg gen -pairs FILE -n N -registry DIR -prompts DIR
//	benchreg prepare -prompts DIR [-edit SKILL.md]
//	benchreg rss [-in FILE] -- CMD [ARG...]
//	benchreg table FILE.tsv
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/megagit/megagit/lab/internal/skillslug"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: benchreg gen|prepare|rss|table ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = genCmd(os.Args[2:])
	case "prepare":
		err = prepareCmd(os.Args[2:])
	case "rss":
		err = rssCmd(os.Args[2:])
	case "table":
		err = tableCmd(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchreg:", err)
		os.Exit(1)
	}
}

// pair is one line of the pairs file.
type pair struct {
	A      string `json:"a"`
	B      string `json:"b"`
	Source string `json:"source"`
}

// maxName is the longest skill id (agentskills.io).
const maxName = 64

// slugify turns a pair's short name into a skill id: lowercase ASCII
// letters and digits, every other run of characters one hyphen, no hyphen
// at either end, at most 64 characters. "" when nothing is left.
func slugify(s string) string {
	return trimID(skillslug.Slug(s), maxName)
}

// trimID cuts an id to at most n bytes without a trailing hyphen.
func trimID(id string, n int) string {
	if len(id) > n {
		id = id[:n]
	}
	return strings.TrimRight(id, "-")
}

// dedupe hands out unique ids: the first "x" stays "x", the next ones
// become "x-2", "x-3", ... (the base cut so the id stays within 64).
type dedupe map[string]bool

func (d dedupe) unique(id string) string {
	if !d[id] {
		d[id] = true
		return id
	}
	for i := 2; ; i++ {
		suffix := "-" + strconv.Itoa(i)
		c := trimID(id, maxName-len(suffix)) + suffix
		if !d[c] {
			d[c] = true
			return c
		}
	}
}

// clean collapses whitespace; descriptions are capped at 1024 characters.
func clean(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max])
	}
	return s
}

// promptLike says whether a description reads as a prompt: 5 to 40 words.
func promptLike(b string) bool {
	n := len(strings.Fields(b))
	return n >= 5 && n <= 40
}

// skill is one generated skill.
type skill struct{ id, name, desc string }

// selection is what gen takes from the pairs file, deterministically: the
// first nPrompts prompt-like pairs are prompts (never skills, so the same
// prompts at every size), the next n usable pairs are the skills.
type selection struct {
	prompts []string
	skills  []skill
}

func selectPairs(r io.Reader, n, nPrompts int) (selection, error) {
	var sel selection
	ids := dedupe{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() && len(sel.skills) < n {
		var p pair
		if json.Unmarshal(sc.Bytes(), &p) != nil {
			continue
		}
		desc := clean(p.B, 1024)
		if desc == "" {
			continue
		}
		if len(sel.prompts) < nPrompts {
			if promptLike(desc) {
				sel.prompts = append(sel.prompts, desc)
			}
			continue
		}
		id := slugify(p.A)
		if id == "" {
			continue
		}
		sel.skills = append(sel.skills, skill{id: ids.unique(id), name: clean(p.A, 200), desc: desc})
	}
	if err := sc.Err(); err != nil {
		return sel, err
	}
	if len(sel.skills) < n {
		return sel, fmt.Errorf("the pairs file has only %d usable pairs for %d skills", len(sel.skills), n)
	}
	return sel, nil
}

// paraphrase is a prompt asking for what a skill's description offers.
func paraphrase(desc string) string {
	d := strings.TrimRight(desc, ".!? ")
	if len(d) > 1 && d[0] >= 'A' && d[0] <= 'Z' && d[1] >= 'a' && d[1] <= 'z' {
		d = strings.ToLower(d[:1]) + d[1:] // "Resize images" but not "API"
	}
	return "I need something for this: " + d + ". What should I use?"
}

// quote is a YAML double-quoted scalar (a JSON string is one).
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

func skillFile(s skill) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n\n# %s\n\n%s\n\nUse when the task involves %s.\n",
		s.id, quote(s.desc), s.name, s.desc, s.name)
}

// hookEvent is the Claude Code UserPromptSubmit event megagit-hook reads.
type hookEvent struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	Prompt         string `json:"prompt"`
}

func genCmd(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	pairs := fs.String("pairs", "", "gzipped JSONL pairs file")
	n := fs.Int("n", 0, "skills")
	reg := fs.String("registry", "", "registry folder (already initialised)")
	promptDir := fs.String("prompts", "", "folder for the prompts")
	nPrompts := fs.Int("n-prompts", 16, "prompts from pairs that are not skills")
	nPara := fs.Int("n-paraphrases", 4, "prompts paraphrasing the registry's own skills")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *pairs == "" || *n < 1 || *reg == "" || *promptDir == "" {
		return errors.New("gen needs -pairs, -n, -registry and -prompts")
	}
	f, err := os.Open(*pairs)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", *pairs, err)
	}
	sel, err := selectPairs(zr, *n, *nPrompts)
	if err != nil {
		return err
	}
	for _, s := range sel.skills {
		p := filepath.Join(*reg, "skills", s.id, "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(skillFile(s)), 0o644); err != nil {
			return err
		}
	}
	prompts := sel.prompts
	for i := 0; i < *nPara && len(sel.skills) > 0; i++ {
		// Skills 0, 25, 50, 75 (of the first 100): the same at every size.
		k := i * 25 % min(len(sel.skills), 100)
		prompts = append(prompts, paraphrase(sel.skills[k].desc))
	}
	root, err := filepath.Abs(*reg)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*promptDir, 0o755); err != nil {
		return err
	}
	for i, p := range prompts {
		ev := hookEvent{
			SessionID:      fmt.Sprintf("bench-%03d", i),
			TranscriptPath: fmt.Sprintf("/tmp/bench-%03d.jsonl", i),
			Cwd:            root,
			HookEventName:  "UserPromptSubmit",
			Prompt:         p,
		}
		data, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		base := filepath.Join(*promptDir, fmt.Sprintf("p%03d", i))
		if err := os.WriteFile(base+".json", append(data, '\n'), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(base+".txt", []byte(p), 0o644); err != nil {
			return err
		}
	}
	// For the script: the skill verdicts go to, and the SKILL.md to edit.
	last := sel.skills[len(sel.skills)-1]
	fmt.Printf("%s\t%s\n", sel.skills[0].id, filepath.Join("skills", last.id, "SKILL.md"))
	return nil
}

// prepareCmd runs before each timed run: the next prompt becomes cur.json,
// cur.txt and cur.sh (`set -- 'PROMPT'`, for a command that takes the
// prompt as an argument without a subshell), and with -edit a skill's
// description changes in place.
func prepareCmd(args []string) error {
	fs := flag.NewFlagSet("prepare", flag.ContinueOnError)
	dir := fs.String("prompts", "", "prompt folder written by gen")
	edit := fs.String("edit", "", "SKILL.md whose description to change in place")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := nextPrompt(*dir); err != nil {
		return err
	}
	if *edit != "" {
		return editDescription(*edit)
	}
	return nil
}

func nextPrompt(dir string) error {
	matches, err := filepath.Glob(filepath.Join(dir, "p[0-9][0-9][0-9].json"))
	if err != nil || len(matches) == 0 {
		return fmt.Errorf("no prompts in %s", dir)
	}
	counter := filepath.Join(dir, "next")
	i := 0
	if data, err := os.ReadFile(counter); err == nil {
		i, _ = strconv.Atoi(strings.TrimSpace(string(data)))
	}
	i %= len(matches)
	base := strings.TrimSuffix(matches[i], ".json")
	for _, ext := range []string{".json", ".txt"} {
		data, err := os.ReadFile(base + ext)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "cur"+ext), data, 0o644); err != nil {
			return err
		}
		if ext == ".txt" {
			sh := "set -- " + shellQuote(string(data)) + "\n"
			if err := os.WriteFile(filepath.Join(dir, "cur.sh"), []byte(sh), 0o644); err != nil {
				return err
			}
		}
	}
	return os.WriteFile(counter, []byte(strconv.Itoa(i+1)), 0o644)
}

// shellQuote is s as one single-quoted shell word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// editMark is appended to, then removed from, the description.
const editMark = " (edited)"

// editDescription toggles editMark at the end of the description line,
// rewriting the file in place (same inode).
func editDescription(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.Split(string(data), "\n")
	done := false
	for i, l := range lines {
		if !strings.HasPrefix(l, "description: \"") || !strings.HasSuffix(l, "\"") {
			continue
		}
		body := strings.TrimSuffix(l, "\"")
		if strings.HasSuffix(body, editMark) {
			lines[i] = strings.TrimSuffix(body, editMark) + "\""
		} else {
			lines[i] = body + editMark + "\""
		}
		done = true
		break
	}
	if !done {
		return fmt.Errorf("%s: no double-quoted description line", path)
	}
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644)
}

// rssCmd runs a command once and prints its peak resident set size in KiB
// (the largest of it and the children it waited for, e.g. megagit-hook
// handing over to megagit).
func rssCmd(args []string) error {
	fs := flag.NewFlagSet("rss", flag.ContinueOnError)
	in := fs.String("in", "", "file for the command's stdin")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("rss needs a command")
	}
	cmd := exec.Command(fs.Arg(0), fs.Args()[1:]...)
	if *in != "" {
		f, err := os.Open(*in)
		if err != nil {
			return err
		}
		defer f.Close()
		cmd.Stdin = f
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return errors.New("no rusage on this system")
	}
	fmt.Println(ru.Maxrss) // KiB on Linux
	return nil
}

// hyperfineResult is the part of `hyperfine --export-json` used here.
type hyperfineResult struct {
	Results []struct {
		Command string  `json:"command"`
		Median  float64 `json:"median"`
		Mean    float64 `json:"mean"`
		Stddev  float64 `json:"stddev"`
	} `json:"results"`
}

// tableCmd prints the Markdown table from a TSV of rows: skills, row
// number, label, hyperfine JSON of hello world, hyperfine JSON of the
// command, peak RSS in KiB, who answered.
func tableCmd(args []string) error {
	if len(args) != 1 {
		return errors.New("table needs one TSV file")
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	fmt.Println("| skills | # | what | p50 | × hello world | hello world p50 | peak RSS | answered by |")
	fmt.Println("|---:|---:|---|---:|---:|---:|---:|---|")
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 7 {
			return fmt.Errorf("bad row %q", line)
		}
		hello, err := median(f[3])
		if err != nil {
			return err
		}
		p50, err := median(f[4])
		if err != nil {
			return err
		}
		rss := "–"
		if kb, err := strconv.ParseFloat(f[5], 64); err == nil {
			rss = fmt.Sprintf("%.0f MB", kb/1024)
		}
		fmt.Printf("| %s | %s | %s | %s | %.1f× | %s | %s | %s |\n",
			thousands(f[0]), f[1], f[2], ms(p50), p50/hello, ms(hello), rss, f[6])
	}
	return nil
}

// median is the p50 of the one command of a hyperfine JSON export.
func median(path string) (float64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var r hyperfineResult
	if err := json.Unmarshal(data, &r); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	if len(r.Results) != 1 || r.Results[0].Median <= 0 {
		return 0, fmt.Errorf("%s: want one command with a positive median", path)
	}
	return r.Results[0].Median, nil
}

func ms(s float64) string {
	v := s * 1000
	if v >= 100 {
		return fmt.Sprintf("%.0f ms", v)
	}
	return fmt.Sprintf("%.1f ms", v)
}

// thousands writes 10000 as 10,000.
func thousands(s string) string {
	if len(s) <= 3 {
		return s
	}
	return thousands(s[:len(s)-3]) + "," + s[len(s)-3:]
}
