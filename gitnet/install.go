package gitnet

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"golang.org/x/net/proxy"
)

// httpTransport is the one http.Transport of http(s) remotes: go-git
// clones it for an operation that needs other TLS or proxy settings, so
// those keep its dialer too.
var httpTransport *http.Transport

// init installs the transports for every program that links this package
// (megagit; megagit-hook links no go-git), so no network operation runs
// without the timeouts, whether SetTimeout was called or not.
func init() {
	timeout.Store(int64(DefaultTimeout))
	httpTransport = http.DefaultTransport.(*http.Transport).Clone()
	httpTransport.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		return dial(ctx, network, addr, nil)
	}
	setHTTPIdle(DefaultTimeout)
	h := githttp.NewClient(&http.Client{Transport: httpTransport})
	client.InstallProtocol("http", h)
	client.InstallProtocol("https", h)
	client.InstallProtocol("git", gitTransport{})
	// go-git's ssh transport dials through the proxy of an operation's
	// ProxyOptions when it has one, and offers no other seam for the
	// connection: every ssh session gets megagit's own "proxy", which
	// dials as go-git would (through ALL_PROXY when set) and wraps the
	// connection in the timeouts.
	proxy.RegisterDialerType(proxyScheme, func(*url.URL, proxy.Dialer) (proxy.Dialer, error) { return sshDialer{}, nil })
	client.InstallProtocol("ssh", sshTransport{gitssh.DefaultClient})
}

// setHTTPIdle keeps an unused kept-alive connection for less than the idle
// timeout, so the transport closes it before it times out waiting for a
// request that never comes (which Watch would count).
func setHTTPIdle(d time.Duration) {
	httpTransport.IdleConnTimeout = d / 2
}

// proxyScheme names megagit's ssh dialer as a proxy URL.
const proxyScheme = "megagit-timeout"

type sshTransport struct{ inner transport.Transport }

func (t sshTransport) NewUploadPackSession(ep *transport.Endpoint, auth transport.AuthMethod) (transport.UploadPackSession, error) {
	return t.inner.NewUploadPackSession(withDialer(ep), auth)
}

func (t sshTransport) NewReceivePackSession(ep *transport.Endpoint, auth transport.AuthMethod) (transport.ReceivePackSession, error) {
	return t.inner.NewReceivePackSession(withDialer(ep), auth)
}

// withDialer is ep dialing through sshDialer, unless it names a proxy of
// its own.
func withDialer(ep *transport.Endpoint) *transport.Endpoint {
	if ep.Proxy.URL != "" {
		return ep
	}
	e := *ep
	e.Proxy = transport.ProxyOptions{URL: proxyScheme + "://"}
	return &e
}

// sshDialer dials as go-git does without a proxy (proxy.FromEnvironment:
// ALL_PROXY, NO_PROXY), with the timeouts.
type sshDialer struct{}

func (sshDialer) Dial(network, addr string) (net.Conn, error) {
	return sshDialer{}.DialContext(context.Background(), network, addr)
}

func (sshDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return dial(ctx, network, addr, func(ctx context.Context, network, addr string) (net.Conn, error) {
		d := proxy.FromEnvironmentUsing(&net.Dialer{KeepAlive: 30 * time.Second})
		if cd, ok := d.(proxy.ContextDialer); ok {
			return cd.DialContext(ctx, network, addr)
		}
		return d.Dial(network, addr)
	})
}
