package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/megagit/megagit/ranker"
)

// errNotServed means no `megagit serve` answered for this registry, or it
// declined: the caller routes in-process.
var errNotServed = errors.New("not served")

// served asks this registry's `megagit serve`, if one runs, to route a
// prompt, within timeout. Any failure returns an error (wrapping
// errNotServed when no server answered or it declined): the caller then
// routes in-process, so a server can only make routing faster.
func served(e *env, prompt, project string, s routeSettings, timeout time.Duration) ([]ranker.Doc, routeResult, error) {
	path := serveSocketPath(e.reg)
	c, err := net.DialTimeout("unix", path, timeout)
	if err != nil {
		return nil, routeResult{}, fmt.Errorf("%w: %v", errNotServed, err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(timeout))
	req := serveRequest{Proto: serveProto, Version: version, Root: e.reg.Root(), Config: serveKey(e.cfg),
		Prompt: prompt, Project: project, Settings: s}
	line, err := json.Marshal(req)
	if err != nil {
		return nil, routeResult{}, err
	}
	if _, err := c.Write(append(line, '\n')); err != nil {
		return nil, routeResult{}, fmt.Errorf("serve %s: %w", path, err)
	}
	data, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		return nil, routeResult{}, fmt.Errorf("serve %s: %w", path, err)
	}
	var resp serveResponse
	if err := json.Unmarshal(data, &resp); err != nil {
		return nil, routeResult{}, fmt.Errorf("serve %s: bad answer: %w", path, err)
	}
	if resp.Declined != "" {
		return nil, routeResult{}, fmt.Errorf("%w: %s", errNotServed, resp.Declined)
	}
	if err := checkWire(resp); err != nil {
		return nil, routeResult{}, fmt.Errorf("serve %s: bad answer: %w", path, err)
	}
	docs, rr := fromWire(resp)
	return docs, rr, nil
}

// checkWire rejects an answer whose indices fall outside its docs.
func checkWire(w serveResponse) error {
	ok := func(d int) bool { return d >= 0 && d < len(w.Docs) }
	for _, b := range w.Ranked {
		if !ok(b.Doc) {
			return fmt.Errorf("ranked doc %d of %d", b.Doc, len(w.Docs))
		}
	}
	for _, list := range [][]int{w.Emitted, w.Rendered.Included} {
		for _, d := range list {
			if !ok(d) {
				return fmt.Errorf("doc %d of %d", d, len(w.Docs))
			}
		}
	}
	return nil
}
