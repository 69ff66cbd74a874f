package gitnet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/format/pktline"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// gitTransport speaks git's own protocol (git://, port 9418), as go-git's
// does, over a connection with the timeouts: go-git's dials with no
// timeout and offers no seam for the connection. The protocol is
// anonymous: no credentials.
type gitTransport struct{}

// gitPort is git://'s default port.
const gitPort = 9418

func (gitTransport) NewUploadPackSession(ep *transport.Endpoint, auth transport.AuthMethod) (transport.UploadPackSession, error) {
	if auth != nil {
		return nil, transport.ErrInvalidAuthMethod
	}
	return &gitSession{ep: ep, service: transport.UploadPackServiceName}, nil
}

func (gitTransport) NewReceivePackSession(ep *transport.Endpoint, auth transport.AuthMethod) (transport.ReceivePackSession, error) {
	if auth != nil {
		return nil, transport.ErrInvalidAuthMethod
	}
	return &gitSession{ep: ep, service: transport.ReceivePackServiceName}, nil
}

// gitSession is one git-upload-pack or git-receive-pack over git://. It
// connects at its first exchange, which is the first to know the
// operation's context.
type gitSession struct {
	ep       *transport.Endpoint
	service  string
	conn     net.Conn
	advRefs  *packp.AdvRefs
	packRun  bool // the pack exchange began: no flush to end it
	finished bool
	done     chan struct{} // closed by Close: stops the context's watcher
	once     sync.Once
}

func (s *gitSession) receive() bool { return s.service == transport.ReceivePackServiceName }

// connect dials the remote and asks for the service; a cancelled ctx
// closes the connection, so the exchange in progress ends.
func (s *gitSession) connect(ctx context.Context) error {
	if s.conn != nil {
		return nil
	}
	port := s.ep.Port
	if port <= 0 {
		port = gitPort
	}
	c, err := dial(ctx, "tcp", net.JoinHostPort(s.ep.Host, strconv.Itoa(port)), nil)
	if err != nil {
		return err
	}
	host := s.ep.Host
	if port != gitPort {
		host = net.JoinHostPort(s.ep.Host, strconv.Itoa(port))
	}
	req := packp.GitProtoRequest{RequestCommand: s.service, Pathname: s.ep.Path, Host: host}
	if err := req.Encode(c); err != nil {
		c.Close()
		return err
	}
	s.conn, s.done = c, make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			c.Close()
		case <-s.done:
		}
	}()
	return nil
}

func (s *gitSession) AdvertisedReferences() (*packp.AdvRefs, error) {
	return s.AdvertisedReferencesContext(context.Background())
}

func (s *gitSession) AdvertisedReferencesContext(ctx context.Context) (*packp.AdvRefs, error) {
	if s.advRefs != nil {
		return s.advRefs, nil
	}
	if err := s.connect(ctx); err != nil {
		return nil, err
	}
	ar := packp.NewAdvRefs()
	capped := newCappedReader(s.conn)
	if err := ar.Decode(capped); err != nil {
		if capped.over {
			return nil, errAdvertisementTooLarge()
		}
		if err := s.advRefsError(err); err != nil {
			return nil, err
		}
	}
	if !s.receive() && ar.IsEmpty() {
		return nil, transport.ErrEmptyRemoteRepository
	}
	transport.FilterUnsupportedCapabilities(ar.Capabilities)
	s.advRefs = ar
	return ar, nil
}

// advRefsError is what a failed read of the advertised refs means, as
// go-git reads it: a server's ERR line, a missing or empty repository.
func (s *gitSession) advRefsError(err error) error {
	var te *TimeoutError
	if errors.As(err, &te) {
		return err
	}
	var line *pktline.ErrorLine
	if errors.As(err, &line) {
		if notFound(line.Text) {
			return transport.ErrRepositoryNotFound
		}
		return line
	}
	var unexpected *packp.ErrUnexpectedData
	switch {
	case errors.Is(err, packp.ErrEmptyInput):
		s.finished = true
		return transport.ErrRepositoryNotFound // git daemon hangs up on a repository it does not serve
	case errors.Is(err, packp.ErrEmptyAdvRefs):
		if s.receive() {
			return nil // an empty repository takes a push
		}
		_ = s.finish()
		return transport.ErrEmptyRemoteRepository
	case errors.As(err, &unexpected) && notFound(string(unexpected.Data)):
		return transport.ErrRepositoryNotFound
	}
	return err
}

// notFound reads a git daemon's refusal.
func notFound(s string) bool {
	for _, m := range []string{"Repository not found.", "no such repository", "access denied", "does not appear to be a git repository"} {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

func (s *gitSession) UploadPack(ctx context.Context, req *packp.UploadPackRequest) (*packp.UploadPackResponse, error) {
	if req.IsEmpty() {
		if err := s.finish(); err != nil {
			return nil, err
		}
		return nil, transport.ErrEmptyUploadPackRequest
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if _, err := s.AdvertisedReferencesContext(ctx); err != nil {
		return nil, err
	}
	s.packRun = true
	if err := req.UploadRequest.Encode(s.conn); err != nil {
		return nil, fmt.Errorf("sending upload-req message: %w", err)
	}
	if err := req.UploadHaves.Encode(s.conn, true); err != nil {
		return nil, fmt.Errorf("sending haves message: %w", err)
	}
	if err := pktline.NewEncoder(s.conn).Encodef("done\n"); err != nil {
		return nil, fmt.Errorf("sending done message: %w", err)
	}
	res := packp.NewUploadPackResponse(req)
	if err := res.Decode(sessionReader{s}); err != nil {
		s.Close()
		return nil, fmt.Errorf("error decoding upload-pack response: %w", err)
	}
	return res, nil
}

// sessionReader reads the pack from the connection and closes the session
// when the response is closed.
type sessionReader struct{ s *gitSession }

func (r sessionReader) Read(p []byte) (int, error) { return r.s.conn.Read(p) }
func (r sessionReader) Close() error               { return r.s.Close() }

func (s *gitSession) ReceivePack(ctx context.Context, req *packp.ReferenceUpdateRequest) (*packp.ReportStatus, error) {
	if _, err := s.AdvertisedReferencesContext(ctx); err != nil {
		return nil, err
	}
	s.packRun = true
	if err := req.Encode(s.conn); err != nil {
		return nil, err
	}
	if !req.Capabilities.Supports(capability.ReportStatus) {
		return nil, s.Close()
	}
	var r io.Reader = s.conn
	var d *sideband.Demuxer
	if req.Capabilities.Supports(capability.Sideband64k) {
		d = sideband.NewDemuxer(sideband.Sideband64k, r)
	} else if req.Capabilities.Supports(capability.Sideband) {
		d = sideband.NewDemuxer(sideband.Sideband, r)
	}
	if d != nil {
		d.Progress = req.Progress
		r = d
	}
	report := packp.NewReportStatus()
	if err := report.Decode(r); err != nil {
		s.Close()
		return nil, err
	}
	if err := report.Error(); err != nil {
		s.Close()
		return report, err
	}
	return report, s.Close()
}

// finish ends a session that exchanged no pack with a flush, as git does.
func (s *gitSession) finish() error {
	if s.finished || s.conn == nil {
		return nil
	}
	s.finished = true
	if !s.packRun {
		_, err := s.conn.Write(pktline.FlushPkt)
		return err
	}
	return nil
}

func (s *gitSession) Close() error {
	var err error
	s.once.Do(func() {
		if s.conn == nil {
			return
		}
		err = s.finish()
		close(s.done)
		if cerr := s.conn.Close(); err == nil && !errors.Is(cerr, net.ErrClosed) {
			err = cerr
		}
	})
	return err
}
