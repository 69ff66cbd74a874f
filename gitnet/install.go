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

// httpTransport is the one http.Transport of http(s) remotes, behind
// refsCapped. go-git clones the client's transport, and requires it to be
// an *http.Transport, only for an endpoint with TLS or proxy options of
// its own (ClientCert, CaBundle, InsecureSkipTLS, Proxy); megagit sets
// none for http(s), so every request goes through refsCapped and this
// transport's dialer, and setHTTPIdle reaches it.
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
	h := githttp.NewClient(&http.Client{Transport: refsCapped{httpTransport}})
	client.InstallProtocol("http", h)
	client.InstallProtocol("https", h)
	client.InstallProtocol("git", gitTransport{})
	// go-git's ssh transport dials through the proxy of an operation's
	// ProxyOptions when it has one, and offers no other seam for the
	// connection: every ssh session gets megagit's own "proxy", which
	// dials as go-git would (through ALL_PROXY when set), wraps the
	// connection in the timeouts and counts it with the session's meter
	// (the proxy URL's host is the meter's id).
	proxy.RegisterDialerType(proxyScheme, func(u *url.URL, _ proxy.Dialer) (proxy.Dialer, error) {
		return sshDialer{meterFor(u.Host)}, nil
	})
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
	m, ep, release := metered(ep)
	defer release()
	s, err := t.inner.NewUploadPackSession(ep, auth)
	if err != nil {
		return nil, err
	}
	return meteredUpload{meteredSession{s, m}, s}, nil
}

func (t sshTransport) NewReceivePackSession(ep *transport.Endpoint, auth transport.AuthMethod) (transport.ReceivePackSession, error) {
	m, ep, release := metered(ep)
	defer release()
	s, err := t.inner.NewReceivePackSession(ep, auth)
	if err != nil {
		return nil, err
	}
	return meteredReceive{meteredSession{s, m}, s}, nil
}

// sshDialer dials as go-git does without a proxy (proxy.FromEnvironment:
// ALL_PROXY, NO_PROXY), with the timeouts, and counted by its meter when
// it has one.
type sshDialer struct{ m *sshMeter }

func (d sshDialer) Dial(network, addr string) (net.Conn, error) {
	return d.DialContext(context.Background(), network, addr)
}

func (d sshDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := dial(ctx, network, addr, func(ctx context.Context, network, addr string) (net.Conn, error) {
		d := proxy.FromEnvironmentUsing(&net.Dialer{KeepAlive: 30 * time.Second})
		if cd, ok := d.(proxy.ContextDialer); ok {
			return cd.DialContext(ctx, network, addr)
		}
		return d.Dial(network, addr)
	})
	if err != nil || d.m == nil {
		return c, err
	}
	return meteredConn{c, d.m}, nil
}
