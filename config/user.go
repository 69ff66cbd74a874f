package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/megagit/megagit/local"
	"github.com/spf13/viper"
)

// User is the user-level config: what every project on this machine
// shares, from UserFile. Its machine settings (model.onnxruntime,
// model.dir) are read by Load, below a registry's .megagit/local/config.yaml.
type User struct {
	// File is where it was read from ("" when there is none).
	File string
	// TeamRegistry is a clone of the team's registry (absolute; "" for
	// none): its skills are read by every project, below the project's
	// own and the user's (team_registry, or MEGAGIT_TEAM_REGISTRY).
	TeamRegistry string
	// UserRegistry is your own registry (absolute; "" when no home folder
	// is known): the personal skills `megagit adopt --scope user` takes
	// from the agents' folders of your home, read by every project, and
	// the evidence of read-only skills once it exists (user_registry, or
	// MEGAGIT_USER_REGISTRY; default UserRegistryDefault). It is never
	// shared unless you give it a remote yourself.
	UserRegistry string
}

// userKeys are the fields the user config may hold: the registries, and
// the machine settings (Load reads those).
var userKeys = func() map[string]bool {
	keys := map[string]bool{"team_registry": true, "user_registry": true}
	for _, k := range MachineKeys() {
		keys[k] = true
	}
	return keys
}()

// TeamRegistryEnv overrides team_registry of the user config.
const TeamRegistryEnv = "MEGAGIT_TEAM_REGISTRY"

// UserRegistryEnv overrides user_registry of the user config.
const UserRegistryEnv = "MEGAGIT_USER_REGISTRY"

// UserRegistryDefault is where your own registry is when the user config
// names none: ${XDG_DATA_HOME:-~/.local/share}/megagit/user ("" when
// neither is known). It is data, not config: it holds a git repository.
func UserRegistryDefault() string {
	base := os.Getenv("XDG_DATA_HOME")
	if !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return ""
		}
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, "megagit", "user")
}

// UserFile is the user config's path: ${XDG_CONFIG_HOME:-~/.config}/megagit/config.yaml
// ("" when neither is known).
func UserFile() string {
	base := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return ""
		}
		base = filepath.Join(home, ".config")
	}
	return filepath.Join(base, "megagit", FileName)
}

// LoadUser reads the user config; a missing file is an empty one. A
// relative or ~/ team_registry is resolved against the file's folder or
// the home folder.
func LoadUser() (*User, error) {
	u := &User{}
	file := UserFile()
	if file != "" {
		data, err := local.ReadRegular(file, local.MaxConfig)
		switch {
		case err == nil:
			u.File = file
			v := viper.New()
			v.SetConfigType("yaml")
			if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
				// The file may be a link to anything readable: say where,
				// never what it holds.
				return nil, fmt.Errorf("%w %s: not a YAML mapping of megagit settings%s", ErrInvalid, file, yamlLine(err))
			}
			if err := refuseUnknown(v, userKeys, file); err != nil {
				return nil, err
			}
			for _, k := range []string{"team_registry", "user_registry"} {
				if x := v.Get(k); x != nil {
					if _, ok := x.(string); !ok {
						return nil, fmt.Errorf("%w %s: field %s: must be a folder's path (a string), not %T", ErrInvalid, file, k, x)
					}
				}
			}
			u.TeamRegistry = v.GetString("team_registry")
			u.UserRegistry = v.GetString("user_registry")
		case errors.Is(err, os.ErrNotExist):
		default:
			return nil, fmt.Errorf("config: %w", err)
		}
	}
	if env, ok := os.LookupEnv(TeamRegistryEnv); ok {
		u.TeamRegistry = env
	}
	u.TeamRegistry = expandPath(u.TeamRegistry, filepath.Dir(file))
	if env, ok := os.LookupEnv(UserRegistryEnv); ok {
		u.UserRegistry = env
	}
	u.UserRegistry = expandPath(u.UserRegistry, filepath.Dir(file))
	if u.UserRegistry == "" {
		u.UserRegistry = UserRegistryDefault()
	}
	return u, nil
}

// expandPath makes p absolute: ~/ is the home folder, a relative path is
// relative to dir.
func expandPath(p, dir string) string {
	if p == "" {
		return ""
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if !filepath.IsAbs(p) && dir != "" {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}

// yamlLine is " (line N)" from a YAML error, when it names a line: where
// to look, without the content a message might quote.
func yamlLine(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "line "); i >= 0 {
		j := i + len("line ")
		for j < len(msg) && msg[j] >= '0' && msg[j] <= '9' {
			j++
		}
		if j > i+len("line ") {
			return " (" + msg[i:j] + ")"
		}
	}
	return ""
}
