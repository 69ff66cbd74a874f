package gitnet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// maxAdvertisement bounds the list of refs a server may advertise, in
// bytes, over every transport: go-git reads that list whole into memory,
// so a server that never stops listing refs would fill it. A repository
// of a million refs advertises about 60 MiB.
var maxAdvertisement int64 = 64 << 20

// ErrAdvertisementTooLarge is a server whose list of refs passed
// maxAdvertisement.
var ErrAdvertisementTooLarge = errors.New("the server's list of refs is too large")

// errAdvertisementTooLarge is the refusal, naming the cap.
func errAdvertisementTooLarge() error {
	return fmt.Errorf("%w (over %d MiB): refused", ErrAdvertisementTooLarge, maxAdvertisement>>20)
}

// cappedReader reads at most left bytes of r, then fails (over set).
type cappedReader struct {
	r    io.Reader
	left int64
	over bool
}

func newCappedReader(r io.Reader) *cappedReader {
	return &cappedReader{r: r, left: maxAdvertisement}
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		c.over = true
		return 0, errAdvertisementTooLarge()
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// refsCapped is the RoundTripper of http(s) remotes: next, with the body
// of a list of refs (GET .../info/refs, the first answer of every list,
// fetch and push) capped. The pack that follows is another request, not
// capped here.
type refsCapped struct{ next http.RoundTripper }

func (t refsCapped) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := t.next.RoundTrip(req)
	if err == nil && req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/info/refs") {
		res.Body = cappedBody{newCappedReader(res.Body), res.Body}
	}
	return res, err
}

type cappedBody struct {
	*cappedReader
	body io.Closer
}

func (b cappedBody) Close() error { return b.body.Close() }

// sshMeter caps what one ssh connection reads until the session's list of
// refs is read: go-git's ssh transport reads that list from the session's
// output, out of reach, but dials the connection under it through
// sshDialer. The count starts at the dial, so it holds the handshake too
// (a few KiB); the list is the first thing the server sends after it.
type sshMeter struct {
	limit int64
	read  atomic.Int64
	done  atomic.Bool // the list was read: no cap
	over  atomic.Bool
}

// sshMeters are the meters of the sessions dialing now, by the id their
// dialer's proxy URL carries (go-git hands the dialer only that URL).
var (
	sshMeters sync.Map // string → *sshMeter
	sshMeterN atomic.Uint64
)

// meterFor is the meter of a dialer's proxy host; nil for none.
func meterFor(id string) *sshMeter {
	if m, ok := sshMeters.Load(id); ok {
		return m.(*sshMeter)
	}
	return nil
}

// meteredConn is a connection counted by its meter.
type meteredConn struct {
	net.Conn
	m *sshMeter
}

func (c meteredConn) Read(p []byte) (int, error) {
	if c.m.done.Load() {
		return c.Conn.Read(p)
	}
	if c.m.over.Load() {
		return 0, errAdvertisementTooLarge()
	}
	n, err := c.Conn.Read(p)
	if c.m.read.Add(int64(n)) > c.m.limit && !c.m.done.Load() {
		c.m.over.Store(true)
		return 0, errAdvertisementTooLarge()
	}
	return n, err
}

// meteredSession is an ssh session whose connection its meter counts
// until the list of refs is read.
type meteredSession struct {
	transport.Session
	m *sshMeter
}

// metered is ep dialing through sshDialer with a new meter, unless it
// names a proxy of its own (then the meter counts nothing); release
// forgets the meter's id once the session is open (it dials before
// go-git's NewUploadPackSession returns).
func metered(ep *transport.Endpoint) (m *sshMeter, withMeter *transport.Endpoint, release func()) {
	m = &sshMeter{limit: maxAdvertisement}
	if ep.Proxy.URL != "" {
		return m, ep, func() {}
	}
	id := strconv.FormatUint(sshMeterN.Add(1), 10)
	sshMeters.Store(id, m)
	e := *ep
	e.Proxy = transport.ProxyOptions{URL: proxyScheme + "://" + id}
	return m, &e, func() { sshMeters.Delete(id) }
}

func (s meteredSession) AdvertisedReferences() (*packp.AdvRefs, error) {
	return s.AdvertisedReferencesContext(context.Background())
}

// AdvertisedReferencesContext reads the list of refs; after it, the
// connection is no longer capped (a pack may be larger).
func (s meteredSession) AdvertisedReferencesContext(ctx context.Context) (*packp.AdvRefs, error) {
	ar, err := s.Session.AdvertisedReferencesContext(ctx)
	s.m.done.Store(true)
	if err != nil && s.m.over.Load() {
		return nil, errAdvertisementTooLarge()
	}
	return ar, err
}

type meteredUpload struct {
	meteredSession
	up transport.UploadPackSession
}

func (s meteredUpload) UploadPack(ctx context.Context, req *packp.UploadPackRequest) (*packp.UploadPackResponse, error) {
	if _, err := s.AdvertisedReferencesContext(ctx); err != nil {
		return nil, err
	}
	return s.up.UploadPack(ctx, req)
}

type meteredReceive struct {
	meteredSession
	rp transport.ReceivePackSession
}

func (s meteredReceive) ReceivePack(ctx context.Context, req *packp.ReferenceUpdateRequest) (*packp.ReportStatus, error) {
	if _, err := s.AdvertisedReferencesContext(ctx); err != nil {
		return nil, err
	}
	return s.rp.ReceivePack(ctx, req)
}
