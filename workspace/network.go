package workspace

import (
	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/gitnet"
)

// UseNetwork gives the fetches, pushes, lists and clones that follow the
// connect and idle timeout of cfg (network.timeout_ms); a nil cfg leaves
// the timeout as it is.
func UseNetwork(cfg *config.Config) {
	if cfg != nil {
		gitnet.SetTimeout(cfg.Network.Timeout)
	}
}
