package regsync

import (
	"context"
	"errors"
	"fmt"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/megagit/megagit/doctor"
	"github.com/megagit/megagit/gitauth"
	"github.com/megagit/megagit/gitnet"
	"github.com/megagit/megagit/registry"
)

// PingRemote lists a remote's refs within timeout: doctor's reachability
// check. It changes nothing. name "" picks the remote sync would.
func PingRemote(rg *registry.Registry, name string, timeout time.Duration) (string, error) {
	r := reg{rg}
	branch, _, err := r.Head() // HEAD may be unborn
	if err != nil {
		return "", err
	}
	name, url, err := r.resolveRemote(name, branch)
	if err != nil {
		return "", err
	}
	rem, err := r.Store().Git().Remote(name)
	if err != nil {
		return url, err
	}
	creds, err := gitauth.Cached(r.GitDir(), url)
	if err != nil {
		return url, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	// The connections' own timeouts too (ssh reads no context): the
	// smaller of timeout and network.timeout_ms.
	if prev := gitnet.Timeout(); timeout < prev {
		gitnet.SetTimeout(timeout)
		defer gitnet.SetTimeout(prev)
	}
	w := gitnet.Begin()
	_, err = rem.ListContext(ctx, &git.ListOptions{Auth: creds.Auth, Timeout: int(timeout / time.Second)})
	err = w.Err(err)
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		err = nil
	}
	return url, creds.Done(err)
}

// RemoteCheck is doctor's check that the remote answers within timeout;
// offline is a warning, not a failure, and no remote is fine.
func RemoteCheck(rg *registry.Registry, timeout time.Duration) doctor.Check {
	url, err := PingRemote(rg, "", timeout)
	switch {
	case errors.Is(err, ErrNoRemote):
		return doctor.Check{Name: "remote", Status: doctor.OK, Detail: "no remote configured (local registry)", Hint: "share it with `megagit remote add origin URL` and `megagit sync`"}
	case err != nil:
		return doctor.Check{Name: "remote", Status: doctor.Warn, Detail: gitauth.Redact(fmt.Sprintf("%s did not answer: %v", url, err)), Hint: "offline? `megagit sync` will work once it is reachable"}
	}
	return doctor.Check{Name: "remote", Status: doctor.OK, Detail: gitauth.Redact(url) + " is reachable"}
}
