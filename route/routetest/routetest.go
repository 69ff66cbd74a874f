// Package routetest checks a running `megagit serve` against routing
// in-process: the server's own tests (route/server) and those of the
// command that starts it with megagit's real router and models
// (internal/cli) share it.
package routetest

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route"
	"github.com/megagit/megagit/route/serve"
)

// Prompts are prompts with a clear match, several weak ones, and none.
var Prompts = []string{
	"my docker image build cache is flaky in the pipeline",
	"stripe webhook signature fails with a timeout",
	"postgres migration is slow",
	"thanks, that's all",
	"react render latency and redis leak",
	"",
}

// Seen is what a user sees of one routed prompt.
type Seen struct {
	Names  []string
	Scores []float64
	Reason string
	Text   string
}

// SeenOf is what a user sees of rr, whose doc indices point into docs.
func SeenOf(docs []ranker.Doc, rr route.Result) Seen {
	r := Seen{Reason: string(rr.Res.Reason), Text: rr.Rendered.Text}
	score := map[int]float64{}
	for _, b := range rr.Res.Ranked {
		score[b.Doc] = b.Final
	}
	for _, d := range rr.Res.Emitted {
		r.Names = append(r.Names, docs[d].ID)
		r.Scores = append(r.Scores, score[d])
	}
	return r
}

// CheckLikeLocal routes every prompt through c's server and with local, in
// both formats, with and without project words, and fails on any
// difference a user could see. It returns the served answers.
func CheckLikeLocal(t testing.TB, c serve.Client, local *route.Router) []route.Result {
	t.Helper()
	var all []route.Result
	for _, format := range []string{"catalog", "compose"} {
		s := route.Settings{TopK: 5, Format: format, Budget: 2000}
		for _, p := range Prompts {
			docs, rr, err := c.Route(p, "", s, 5*time.Second)
			if err != nil {
				t.Fatalf("%q: %v", p, err)
			}
			all = append(all, rr)
			got, want := SeenOf(docs, rr), SeenOf(local.Docs, local.Route(p, s))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %q: served %+v\nin-process %+v", format, p, got, want)
			}
			docs, rr, err = c.Route(p, "kafka-tools", s, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			got, want = SeenOf(docs, rr), SeenOf(local.Docs, local.RouteWithProject(p, "kafka-tools", s))
			if !reflect.DeepEqual(got.Names, want.Names) || got.Reason != want.Reason {
				t.Errorf("%q with project: served %+v\nin-process %+v", p, got, want)
			}
		}
	}
	return all
}

// Start runs serve (a server's Run) until the test ends, then stops it
// and fails the test if it returned an error.
func Start(t testing.TB, serve func(context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
}

// WaitServed waits until c's server answers, and fails the test with the
// server's log when none has after 30 seconds.
func WaitServed(t testing.TB, c serve.Client, log fmt.Stringer) {
	t.Helper()
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		if _, _, err := c.Route("ping", "", route.Settings{}, time.Second); err == nil {
			return
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("serve did not answer: %s", log.String())
		}
	}
}

// Log is a server's log: written by its goroutines, read by the test.
type Log struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p, from any goroutine.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is everything written so far.
func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
