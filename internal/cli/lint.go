package cli

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"

	"github.com/megagit/megagit/skillfile"
	"github.com/spf13/cobra"
)

type lintOptions struct {
	app  *app
	json bool
}

// newLintCmd parses `megagit lint` into options and hands them to runF,
// or to lintRun when runF is nil (tests pass a stub).
func newLintCmd(a *app, runF func(*lintOptions) error) *cobra.Command {
	opts := &lintOptions{app: a}
	cmd := &cobra.Command{
		Use:   "lint",
		Short: "Report every problem in every skill: file, line, field, message",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return lintRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	return cmd
}

func lintRun(opts *lintOptions) error {
	e, err := opts.app.open(nil)
	if err != nil {
		return err
	}
	problems := []skillfile.Problem{}
	seen := map[string]string{}
	for _, root := range e.cfg.Roots {
		dir := filepath.Join(e.reg.Root(), filepath.FromSlash(root))
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, ent := range ents {
			if !ent.IsDir() && ent.Type()&os.ModeSymlink == 0 {
				continue
			}
			rel := path.Join(root, ent.Name(), "SKILL.md")
			data, err := readSkillForLint(filepath.Join(dir, ent.Name(), "SKILL.md"))
			if os.IsNotExist(err) {
				continue
			}
			if err != nil {
				problems = append(problems, skillfile.Problem{File: rel, Field: "file", Message: err.Error(), Severity: "error"})
				continue
			}
			if first, ok := seen[ent.Name()]; ok {
				problems = append(problems, skillfile.Problem{File: rel, Field: "name", Severity: "error",
					Message: fmt.Sprintf("skill %q is already defined by %s; this copy is ignored", ent.Name(), first)})
			}
			seen[ent.Name()] = rel
			problems = append(problems, skillfile.Lint(ent.Name(), rel, data)...)
		}
	}
	errorsFound := 0
	for _, p := range problems {
		if p.Severity != "warning" {
			errorsFound++
		}
	}
	if opts.json {
		if err := printJSON(opts.app.out, problems); err != nil {
			return err
		}
	} else if len(problems) > 0 {
		rows := make([][]string, 0, len(problems))
		for _, p := range problems {
			rows = append(rows, []string{p.File, strconv.Itoa(p.Line), p.Field, p.Severity, p.Message})
		}
		if err := printTable(opts.app.out, []string{"FILE", "LINE", "FIELD", "SEVERITY", "MESSAGE"}, rows); err != nil {
			return err
		}
	}
	if errorsFound > 0 {
		return fmt.Errorf("%w: %d error(s) in skills", errProblems, errorsFound)
	}
	fmt.Fprintf(opts.app.errOut, "megagit: %d skill(s) checked, no errors\n", len(seen))
	return nil
}

func readSkillForLint(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAllLimited(f, skillfile.MaxSize)
}

// readAllLimited reads at most limit bytes and fails clearly beyond that.
func readAllLimited(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %d MiB", limit>>20)
	}
	return data, nil
}
