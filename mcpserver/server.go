// Package mcpserver is `megagit mcp`: the registry behind the Model
// Context Protocol, for agents that call tools rather than (or besides)
// running hooks. Its tools search the skills with the prompt hook's ranking
// and abstention, read one skill, list them, and record a verdict as a
// commit, as `megagit verdict` does. The protocol itself is the official Go
// SDK's (github.com/modelcontextprotocol/go-sdk); this package only says what
// each tool does.
package mcpserver

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/megagit/megagit/workspace"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options are one server's: where its registry is, its clock and where it
// logs (never stdout, which is the protocol's).
type Options struct {
	// Dir is where the registry is looked for (-C, else the working
	// directory).
	Dir string
	// Project is the project's name as words (hook.ProjectWords of the
	// agent's working directory), which joins a search as the prompt
	// hook's does; "" for none.
	Project string
	Version string
	Now     func() time.Time // nil: time.Now
	Log     io.Writer        // nil: discard
}

// Server answers the tools for one registry. Its calls run one at a time:
// the registry and its compiled index are written by the process that
// holds their lock, and a search is quick.
type Server struct {
	opts Options
	ws   *workspace.Workspace

	mu sync.Mutex
	// offered is, per MCP session, the skills search_skills or get_skill
	// returned there, with the query a search returned each for (kept as
	// the verdict's context): record_verdict takes only these.
	offered map[*mcp.ServerSession]map[string]string
}

// New opens the registry around opts.Dir; a directory in no registry is
// an error here, before any client connects.
func New(opts Options) (*Server, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	s := &Server{opts: opts, offered: map[*mcp.ServerSession]map[string]string{}}
	ws, err := workspace.Open(opts.Dir, nil, s.say)
	if err != nil {
		return nil, err
	}
	s.ws = ws
	return s, nil
}

// Root is the registry the server answers for.
func (s *Server) Root() string { return s.ws.Reg.Root() }

// MCP is the protocol server with megagit's four tools, to run on a
// transport (or connect in-process, as the tests do).
func (s *Server) MCP() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "megagit", Title: "megagit skill registry", Version: s.opts.Version},
		&mcp.ServerOptions{Instructions: instructions, Capabilities: &mcp.ServerCapabilities{}})
	s.addTools(srv)
	return srv
}

// Run serves the tools on t until the client goes away or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	s.logf("serving %s over MCP", s.Root())
	return s.MCP().Run(ctx, t)
}

const instructions = "megagit keeps this project's skills (SKILL.md files) in a git registry. " +
	"Call search_skills with the task at hand to find the skills worth reading (it may say nothing fits), " +
	"get_skill to read one, and record_verdict once you know whether a skill you used helped."

// logf writes one line to the log (stderr).
func (s *Server) logf(format string, args ...any) {
	fmt.Fprintf(s.opts.Log, "megagit mcp: "+format+"\n", args...)
}

// offer remembers that name was returned in session ss (for query, "" when
// read with get_skill).
func (s *Server) offer(ss *mcp.ServerSession, name, query string) {
	m := s.offered[ss]
	if m == nil {
		m = map[string]string{}
		s.offered[ss] = m
	}
	if _, ok := m[name]; !ok || query != "" {
		m[name] = query
	}
}

// wasOffered reports whether name was returned in ss, and the query it was
// returned for.
func (s *Server) wasOffered(ss *mcp.ServerSession, name string) (query string, ok bool) {
	query, ok = s.offered[ss][name]
	return query, ok
}
