package cli

import (
	"errors"

	"github.com/megagit/megagit/config"
	"github.com/megagit/megagit/errkind"
	"github.com/megagit/megagit/workspace"
)

// useNetwork gives the command's fetches, pushes, lists and clones the
// connect and idle timeout of cfg (network.timeout_ms).
func useNetwork(cfg *config.Config) { workspace.UseNetwork(cfg) }

// netErr is err with the way out of a remote that timed out.
func netErr(err error) error {
	if errors.Is(err, errkind.ErrTimeout) {
		return withHint(err, "the remote (or the network to it) is down or slow; try again later, or give it longer: network.timeout_ms in .megagit/config.yaml, or MEGAGIT_NETWORK_TIMEOUT_MS")
	}
	return err
}
