package eval

import (
	"fmt"
	"strings"

	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/ranker"
)

// SessionPrompts is how many prompts the session instruction is spread
// over when eval compares megagit's context cost with the native listing.
const SessionPrompts = 20

// nativeListingHead is the line an agent puts above its skill listing.
const nativeListingHead = "The following skills are available for use with the Skill tool:\n\n"

// NativeListing is the text an agent that lists every skill itself sends
// with every prompt: one "- name: description" line per skill that is not
// archived, the form Claude Code uses in its listing.
func NativeListing(docs []ranker.Doc) string {
	var b strings.Builder
	b.WriteString(nativeListingHead)
	for _, d := range docs {
		if d.Status == ranker.StatusArchived {
			continue
		}
		fmt.Fprintf(&b, "- %s: %s\n", d.ID, strings.Join(strings.Fields(d.Description), " "))
	}
	return b.String()
}

// Context compares the context one prompt costs with the agent's native
// listing of every skill and with megagit: the mean injection plus the
// session instruction (given once per session by the SessionStart hook)
// spread over SessionPrompts prompts. Tokens are ranker.Tokens (4 bytes a
// token), the same count as "mean tokens".
type Context struct {
	Skills              int     `json:"skills"`
	NativeListingTokens int     `json:"native_listing_tokens"`
	InjectedTokens      float64 `json:"injected_tokens"`
	SessionTokens       int     `json:"session_instruction_tokens"`
	SessionPrompts      int     `json:"session_prompts"`
	PerPromptTokens     float64 `json:"per_prompt_tokens"`
	ShareOfNative       float64 `json:"share_of_native"`
}

// ContextCost is the context comparison for the benchmark's skills and
// the mean injected tokens of a run.
func ContextCost(docs []ranker.Doc, meanInjected float64) Context {
	c := Context{
		Skills:              len(docs),
		NativeListingTokens: ranker.Tokens(NativeListing(docs)),
		InjectedTokens:      meanInjected,
		SessionTokens:       ranker.Tokens(hook.SessionInstruction),
		SessionPrompts:      SessionPrompts,
	}
	c.PerPromptTokens = round4(meanInjected + float64(c.SessionTokens)/SessionPrompts)
	if c.NativeListingTokens > 0 {
		c.ShareOfNative = round4(c.PerPromptTokens / float64(c.NativeListingTokens))
	}
	return c
}

// String is the comparison in one line, printed under eval's table.
func (c Context) String() string {
	return fmt.Sprintf("context per prompt: the native listing of %d skills %d tokens; megagit %.0f (%.0f injected + %d session tokens / %d prompts) = %.1f%% of it",
		c.Skills, c.NativeListingTokens, c.PerPromptTokens, c.InjectedTokens, c.SessionTokens, c.SessionPrompts, 100*c.ShareOfNative)
}
