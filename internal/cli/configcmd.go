package cli

import (
	"fmt"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/local"
	"github.com/megagit/megagit/workspace"
	"github.com/spf13/cobra"
)

type configOptions struct {
	app  *app
	json bool
}

// newConfigCmd parses `megagit config` into options and hands them to runF,
// or to configRun when runF is nil (tests pass a stub).
func newConfigCmd(a *app, runF func(*configOptions) error) *cobra.Command {
	opts := &configOptions{app: a}
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show the effective settings and where each came from",
		Long: `config shows every setting in effect here and where each came from: its
default, a config file, an environment variable or a flag.`,
		Example: examples(
			"megagit config", "every setting and where it came from",
			"megagit config --json", "as JSON",
		),
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return orRun(runF, configRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON")
	return cmd
}

func configRun(opts *configOptions) error {
	files := config.FilesFor("")
	if _, err := local.Find(opts.app.workDir()); err == nil {
		// The registry's files as every command reads them (its local
		// config left out when git tracks it, with the warnings).
		w, err := opts.app.open(nil)
		if err != nil {
			return err
		}
		files = w.Files
	}
	cfg, settings, err := config.LoadFiles(files, nil)
	if err != nil {
		return err
	}
	// A setting left at 0 or "" defers to megagit's default or the
	// model's profile: show what routing really uses, and from where.
	inForce := workspace.SettingsInForce(cfg)
	type settingJSON struct {
		config.Setting
		InForce any    `json:"in_force"`
		Why     string `json:"in_force_from,omitempty"`
	}
	out := make([]settingJSON, 0, len(settings))
	rows := make([][]string, 0, len(settings))
	for _, s := range settings {
		row := settingJSON{Setting: s, InForce: s.Value}
		source := s.Source
		if f, ok := inForce[s.Key]; ok && s.Source == "default" {
			row.InForce, row.Why = f.Value, f.Why
			source = "default: " + f.Why
		}
		out = append(out, row)
		rows = append(rows, []string{s.Key, fmt.Sprint(row.InForce), source})
	}
	if opts.json {
		return printJSON(opts.app.out, out)
	}
	return printTable(opts.app.out, []string{"KEY", "IN FORCE", "SOURCE"}, rows)
}
