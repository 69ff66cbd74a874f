package eval

import (
	"strings"
	"testing"

	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/ranker"
)

func TestContextCost(t *testing.T) {
	docs := []ranker.Doc{
		{ID: "pdf-forms", Description: "Fill and flatten PDF forms.\n  Use when a PDF has fields."},
		{ID: "old-thing", Description: "Retired.", Status: ranker.StatusArchived},
		{ID: "flaky-tests", Description: "Find and fix flaky tests."},
	}
	listing := NativeListing(docs)
	if !strings.Contains(listing, "- pdf-forms: Fill and flatten PDF forms. Use when a PDF has fields.\n") ||
		!strings.Contains(listing, "- flaky-tests: Find and fix flaky tests.\n") {
		t.Errorf("listing lacks a skill's line:\n%s", listing)
	}
	if strings.Contains(listing, "old-thing") {
		t.Errorf("an archived skill is listed:\n%s", listing)
	}
	c := ContextCost(docs, 100)
	session := ranker.Tokens(hook.SessionInstruction)
	if c.NativeListingTokens != ranker.Tokens(listing) || c.SessionTokens != session {
		t.Errorf("tokens: listing %d, session %d; want %d, %d", c.NativeListingTokens, c.SessionTokens, ranker.Tokens(listing), session)
	}
	want := 100 + float64(session)/SessionPrompts
	if diff := c.PerPromptTokens - want; diff > 1e-3 || diff < -1e-3 {
		t.Errorf("per prompt %.4f, want %.4f (injection plus the session instruction over %d prompts)", c.PerPromptTokens, want, SessionPrompts)
	}
	if c.ShareOfNative <= 1 {
		// Three short skills cost less to list than one injection: the share
		// says so rather than hiding it.
		t.Errorf("share %.4f of a tiny listing should exceed 1", c.ShareOfNative)
	}
	if s := c.String(); !strings.Contains(s, "native listing of 3 skills") {
		t.Errorf("summary %q does not count the skills", s)
	}
}
