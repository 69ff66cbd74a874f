package serve

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/megagit/megagit/ranker"
	"github.com/megagit/megagit/route"
)

func TestRequestDecline(t *testing.T) {
	ok := Request{Proto: Proto, Version: "v1", Root: "/reg"}
	tests := []struct {
		name string
		edit func(*Request)
		want string
	}{
		{"same", func(*Request) {}, ""},
		{"other protocol", func(r *Request) { r.Proto = Proto + 1 }, "server is megagit v1 (protocol 1)"},
		{"other version", func(r *Request) { r.Version = "v2" }, "server is megagit v1 (protocol 1)"},
		{"other registry", func(r *Request) { r.Root = "/other" }, "server serves /reg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := ok
			tt.edit(&req)
			if got := req.Decline("v1", "/reg"); got != tt.want {
				t.Errorf("Decline = %q, want %q", got, tt.want)
			}
		})
	}
}

// A served answer read back names the same docs, scores and rendering as
// the result it was packed from.
func TestWireRoundTrip(t *testing.T) {
	docs := []ranker.Doc{
		{ID: "docker-cache", Description: "Speed up docker image builds with layer caching.", Body: "# Steps\n"},
		{ID: "flaky-tests", Description: "Triage flaky tests that fail randomly on CI.", Body: "# Triage\n"},
		{ID: "pg-migrations", Description: "Plan postgres schema migrations.", Body: "# Plan\n"},
	}
	rt, _ := route.New(docs, ranker.DefaultConfig(), nil, route.DynamicKOverride{}, nil)
	s := route.Settings{TopK: 3, Format: "compose", Budget: 2000}
	want := rt.Route("my docker image build is slow", s)
	if want.Res.K == 0 {
		t.Fatal("the prompt matched nothing")
	}
	req := Request{Proto: Proto, Version: "v1", Root: "/reg", Prompt: "p", Settings: s}
	var buf bytes.Buffer
	if err := WriteResponse(&buf, ToWire(rt.Docs, want, true)); err != nil {
		t.Fatal(err)
	}
	var resp Response
	line := strings.TrimSuffix(buf.String(), "\n")
	if strings.Contains(line, "\n") || len(line) == buf.Len() {
		t.Fatalf("not one line: %q", buf.String())
	}
	if err := json.Unmarshal([]byte(line), &resp); err != nil {
		t.Fatal(err)
	}
	if err := checkWire(resp); err != nil {
		t.Fatal(err)
	}
	got, rr := fromWire(resp)
	names := func(d []ranker.Doc, ids []int) (out []string) {
		for _, i := range ids {
			out = append(out, d[i].ID)
		}
		return out
	}
	if !reflect.DeepEqual(names(got, rr.Res.Emitted), names(docs, want.Res.Emitted)) || rr.Rendered.Text != want.Rendered.Text || !rr.Served {
		t.Errorf("served %v %q, want %v %q", names(got, rr.Res.Emitted), rr.Rendered.Text, names(docs, want.Res.Emitted), want.Rendered.Text)
	}

	buf.Reset()
	buf.WriteString(`{"proto":1,"version":"v1","root":"/reg","prompt":"p","settings":{"TopK":3,"NoDynamic":false,"Format":"compose","Budget":2000}}` + "\n")
	back, err := ReadRequest(&buf)
	if err != nil || !reflect.DeepEqual(back, req) {
		t.Errorf("ReadRequest = %+v, %v; want %+v", back, err, req)
	}
	if err := checkWire(Response{Emitted: []int{5}}); err == nil {
		t.Error("an answer naming a doc it does not carry passed the check")
	}
}
