package ranker

// Doc is one skill as the ranker sees it; the caller builds it from the
// registry so the ranker never touches disk.
type Doc struct {
	ID, Path, Description string
	// Headings and Triggers are the body's heading lines and its trigger
	// lines ("Use when ...", "Triggers: ...").
	Headings, Triggers []string
	// Body is the full skill body: the index reads its most frequent
	// terms, and composing an injection renders it.
	Body string
	// BodyTerms are the body's BodyTerms most frequent terms
	// (FillBodyTerms); nil: NewIndex reads them from Body.
	BodyTerms []TermCount

	HelpfulContexts, HarmfulContexts []string
	HelpfulCount, HarmfulCount       int
	// Status is "active", "suspect" or "archived"; empty means active.
	Status string
	// Weight is the resolved trajectory multiplier (1 for a cold start).
	Weight float64
	// Silence is the silence penalty's multiplier (lifecycle.SilenceMultiplier;
	// 0 or 1: none).
	Silence float64
	// Updated is when the skill's evidence last changed, in Unix seconds (0:
	// never): the age that Blend.HalfLifeDays fades the evidence by.
	Updated int64
	// Related holds the reasons of past verdicts on this skill.
	Related []Reason
	// Learnt are prompts of the agents' past sessions that the skill
	// served (`megagit learn history`), newest first: like HelpfulContexts, but each
	// weighs Blend.Learnt of one and fades from LearntUpdated (Unix
	// seconds of the newest); they are never a verdict.
	Learnt        []string `json:",omitempty"`
	LearntUpdated int64    `json:",omitempty"`
	// Paths are the globs a skill is limited to (Claude Code's paths:,
	// relative to the project's top): with any, the skill is a candidate
	// only where Options.Out says it is not out.
	Paths []string `json:",omitempty"`
	// Held are the rules that hold the skill back until its user allows
	// it (a high audit finding's rule, "lock-drift" for files that differ
	// from the lock): Options.Held says, per prompt, which still do.
	Held []string `json:",omitempty"`
}

// Reason is the text of one past verdict and its polarity, for the
// related-verdict term of the blend.
type Reason struct {
	Text    string
	Helpful bool
}

// Skill statuses, as written in the evidence block.
const (
	StatusActive   = "active"
	StatusSuspect  = "suspect"
	StatusArchived = "archived"
)

// Field is one BM25F field's weight and length normalisation, so a match in
// a skill's name can count for more than one in its contexts.
type Field struct {
	Weight float64
	B      float64
}

// Fields holds the BM25F parameters of every indexed field. Body is the
// skill's body text, indexed by its BodyTerms most frequent terms.
type Fields struct {
	Name, Description, Headings, Triggers, Contexts, Body Field
}

// BodyTerms is how many of a skill body's distinct terms the index keeps:
// the most frequent, ties by the term. A skill's body names what it is
// for in words its name and description leave out, and a few hundred of
// them carry nearly all of that (on the development benchmarks),
// while a long body's rare terms would only grow the index every prompt
// loads. Changing it, or the tokeniser, changes the terms a compiled route
// index keeps with its documents: bump route's index version with it.
const BodyTerms = 256

// Fusion says how a dense score joins the lexical one; the default is
// lexical only until an embedding channel is measured.
type Fusion struct {
	// Mode is FusionLexical, FusionLinear or FusionMax.
	Mode string
	// DenseWeight is alpha in (1-alpha)*lexical + alpha*dense (FusionLinear).
	DenseWeight float64
}

// Fusion modes.
const (
	FusionLexical = "lexical"
	FusionLinear  = "linear"
	FusionMax     = "max"
)

// LexicalFastPath is the dominant-winner gate, on raw BM25F scores: a
// prompt that names one skill's words far more than any other's gets that
// skill alone.
type LexicalFastPath struct {
	// Min is the raw BM25F score the winner must reach; <= 0 turns the
	// fast path off.
	Min float64
	// Margin is how far the winner must lead the runner-up (raw score).
	Margin float64
}

// MMR parameters: Lambda trades relevance against redundancy and
// DupSim is the doc-doc similarity at which a candidate counts as a
// near-duplicate of one already selected and is dropped.
type MMR struct {
	Lambda float64
	DupSim float64
}

// Config holds every ranking knob; the CLI fills it from config and env.
type Config struct {
	K1       float64
	Fields   Fields
	Blend    Blend
	DynamicK DynamicK
	FastPath LexicalFastPath
	MMR      MMR
	Fusion   Fusion
	Typos    Typos
}

// DefaultFields weigh every field once, with the standard b = 0.75, except
// headings and the body at a quarter: a long skill has dozens of generic
// headings ("Overview", "Examples") and a long body that otherwise lift it
// for unrelated prompts (measured on the development benchmarks).
func DefaultFields() Fields {
	return Fields{
		Name:        Field{Weight: 1, B: 0.75},
		Description: Field{Weight: 1, B: 0.75},
		Headings:    Field{Weight: 0.25, B: 0.75},
		Triggers:    Field{Weight: 1, B: 0.75},
		Contexts:    Field{Weight: 1, B: 0.75},
		Body:        Field{Weight: 0.25, B: 0.75},
	}
}

// DefaultConfig is the lexical-only pipeline megagit ships with.
func DefaultConfig() Config {
	return Config{
		K1:       1.2,
		Fields:   DefaultFields(),
		Blend:    DefaultBlend(),
		DynamicK: LexicalProfile(),
		MMR:      MMR{Lambda: 0.7, DupSim: 0.9},
		Fusion:   Fusion{Mode: FusionLexical},
		Typos:    DefaultTypos(),
	}
}
