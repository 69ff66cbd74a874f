package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// versionInfo is what `megagit version` reports; its JSON is stable.
type versionInfo struct {
	Version  string `json:"version"`  // the release, the module version, or "(devel)"
	Commit   string `json:"commit"`   // the full vcs.revision; "" when the build recorded none
	Modified bool   `json:"modified"` // the build had uncommitted changes
	Go       string `json:"go"`       // the Go release the binary was built with
}

// buildVersion is this binary's version: the release version goreleaser
// sets, else what `go build` and `go install` recorded in the binary.
func buildVersion() versionInfo {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	return resolveVersion(version, info)
}

// resolveVersion prefers release (the -X ldflag) unless it is unset
// ("dev"); then the main module's version (v1.2.3 from `go install
// ...@v1.2.3`, a pseudo-version, or "(devel)" from a clone). The commit
// comes from the vcs settings when the build recorded them.
func resolveVersion(release string, info *debug.BuildInfo) versionInfo {
	v := versionInfo{Version: release, Go: runtime.Version()}
	if info != nil {
		if info.GoVersion != "" {
			v.Go = info.GoVersion
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Commit = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if v.Version == "" || v.Version == "dev" {
		v.Version = "(devel)"
		if info != nil && info.Main.Version != "" {
			v.Version = info.Main.Version
		}
	}
	return v
}

// String is the version as `megagit version` and `megagit --version` print
// it: "1.2.3", "(devel) 2ec955f1c0de", "(devel) 2ec955f1c0de+dirty". A
// pseudo-version already names its commit, which is then not repeated.
func (v versionInfo) String() string {
	s := v.Version
	short := v.Commit
	if len(short) > 12 {
		short = short[:12]
	}
	if short != "" && !strings.Contains(s, short) {
		s += " " + short
		if v.Modified {
			s += "+dirty"
		}
	}
	return s
}

type versionOptions struct {
	app  *app
	json bool
}

// newVersionCmd parses `megagit version` into options and hands them to
// runF, or to versionRun when runF is nil (tests pass a stub).
func newVersionCmd(a *app, runF func(*versionOptions) error) *cobra.Command {
	opts := &versionOptions{app: a}
	cmd := &cobra.Command{
		Use:   "version [--json]",
		Short: "Print megagit's version (also megagit --version)",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return orRun(runF, versionRun)(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON: version, commit, modified, go")
	return cmd
}

func versionRun(opts *versionOptions) error {
	v := buildVersion()
	if opts.json {
		return printJSON(opts.app.out, v)
	}
	_, err := fmt.Fprintf(opts.app.out, "megagit %s\n", v)
	return err
}
