package learn

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/megagit/megagit/models"
	"github.com/megagit/megagit/models/train"
)

// ErrTooLittleEvidence means a registry's verdicts cannot train and judge an
// adapted model: too few helpful contexts, or none held back to judge with.
var ErrTooLittleEvidence = errors.New("too little evidence to adapt the model")

// MinAdaptHelpful is the fewest usable helpful contexts adapt works with.
const MinAdaptHelpful = 5

// AdaptSkill is one skill as routing embeds it (Full = "name: description",
// Name = the name), so adapt learns and judges the space routing uses.
type AdaptSkill struct {
	ID, Full, Name string
}

// AdaptVerdict is one explicit verdict that carries a context.
type AdaptVerdict struct {
	Skill, Context string
	Helpful        bool
}

// AdaptExample is a context attributed to a skill (an index into Skills).
type AdaptExample struct {
	Skill   int
	Context string
}

// AdaptData is a registry's evidence, split: Train and Held are helpful
// contexts (Held is never trained on), Harmful are hard negatives.
type AdaptData struct {
	Skills              []AdaptSkill
	Train, Held         []AdaptExample
	Harmful             []AdaptExample
	Contradictory       int // (skill, context) pairs both helpful and harmful, dropped
	UnknownSkill        int // verdicts of skills no longer in the registry
	DuplicateContexts   int // repeated (skill, verdict, context), counted once
	SkillsWithEvidence  int // skills with at least one helpful context
	SkillsWithHeldBacks int
}

// Helpful is the number of usable helpful contexts, trained or held back.
func (d AdaptData) Helpful() int { return len(d.Train) + len(d.Held) }

// BuildAdaptData turns verdicts into examples and splits the helpful ones
// deterministically by a hash of (skill, context): about holdout of them are
// held back, at least one per skill that has two or more, never all of a
// skill's. A skill's only helpful context always trains. Contexts that were
// both helpful and harmful for a skill (compared case- and space-blind) are
// dropped as contradictory.
func BuildAdaptData(skills []AdaptSkill, verdicts []AdaptVerdict, holdout float64) AdaptData {
	d := AdaptData{Skills: append([]AdaptSkill(nil), skills...)}
	sort.SliceStable(d.Skills, func(i, j int) bool { return d.Skills[i].ID < d.Skills[j].ID })
	index := make(map[string]int, len(d.Skills))
	for i, s := range d.Skills {
		index[s.ID] = i
	}
	type side struct {
		texts []string        // first spelling of each context, in ledger order
		seen  map[string]bool // folded keys
	}
	helpful, harmful := make([]side, len(d.Skills)), make([]side, len(d.Skills))
	for _, v := range verdicts {
		text := strings.Join(strings.Fields(v.Context), " ")
		if text == "" {
			continue
		}
		i, ok := index[v.Skill]
		if !ok {
			d.UnknownSkill++
			continue
		}
		s := &harmful[i]
		if v.Helpful {
			s = &helpful[i]
		}
		key := strings.ToLower(text)
		if s.seen[key] {
			d.DuplicateContexts++
			continue
		}
		if s.seen == nil {
			s.seen = map[string]bool{}
		}
		s.seen[key] = true
		s.texts = append(s.texts, text)
	}
	for i := range d.Skills {
		var good []string
		for _, t := range helpful[i].texts {
			if harmful[i].seen[strings.ToLower(t)] {
				d.Contradictory++
				continue
			}
			good = append(good, t)
		}
		for _, t := range harmful[i].texts {
			if !helpful[i].seen[strings.ToLower(t)] {
				d.Harmful = append(d.Harmful, AdaptExample{Skill: i, Context: t})
			}
		}
		train, held := splitContexts(d.Skills[i].ID, good, holdout)
		for _, t := range train {
			d.Train = append(d.Train, AdaptExample{Skill: i, Context: t})
		}
		for _, t := range held {
			d.Held = append(d.Held, AdaptExample{Skill: i, Context: t})
		}
		if len(good) > 0 {
			d.SkillsWithEvidence++
		}
		if len(held) > 0 {
			d.SkillsWithHeldBacks++
		}
	}
	return d
}

// splitContexts orders one skill's helpful contexts by hash and holds back
// those whose hash falls below holdout, with the per-skill minimums.
func splitContexts(skill string, texts []string, holdout float64) (train, held []string) {
	if len(texts) < 2 || holdout <= 0 {
		return texts, nil
	}
	sorted := append([]string(nil), texts...)
	sort.SliceStable(sorted, func(a, b int) bool { return holdHash(skill, sorted[a]) < holdHash(skill, sorted[b]) })
	n := 0
	for n < len(sorted) && holdHash(skill, sorted[n]) < holdout {
		n++
	}
	n = min(max(n, 1), len(sorted)-1)
	return sorted[n:], sorted[:n]
}

// holdHash maps (skill, context) to [0, 1), the same on every machine.
func holdHash(skill, context string) float64 {
	sum := sha256.Sum256([]byte(skill + "\x00" + strings.ToLower(context)))
	return float64(binary.BigEndian.Uint64(sum[:8])>>11) / (1 << 53)
}

// AdaptPairs are the training pairs: A = the skill's text, B = a helpful
// context, Neg = every context the skill was harmful for, so the skill must
// sit closer to contexts it helped than to those it harmed. Pairs with a
// side the tokenizer reads as nothing are dropped.
func AdaptPairs(tok *models.Tokenizer, d AdaptData) []train.Pair {
	negs := make([][][]int32, len(d.Skills))
	for _, h := range d.Harmful {
		if ids := tok.IDs(h.Context); len(ids) > 0 {
			negs[h.Skill] = append(negs[h.Skill], ids)
		}
	}
	var pairs []train.Pair
	for _, ex := range d.Train {
		a, b := tok.IDs(d.Skills[ex.Skill].Full), tok.IDs(ex.Context)
		if len(a) > 0 && len(b) > 0 {
			pairs = append(pairs, train.Pair{A: a, B: b, Neg: negs[ex.Skill]})
		}
	}
	return pairs
}

// AdaptMetrics judge a model on a registry's own evidence: recall and MRR of
// the held-back helpful contexts, and how often a harmful context ranks its
// harmed skill first (lower is better).
type AdaptMetrics struct {
	Held        int     `json:"held"`
	R1          float64 `json:"recall_at_1"`
	R5          float64 `json:"recall_at_5"`
	MRR         float64 `json:"mrr"`
	Harmful     int     `json:"harmful"`
	HarmfulTop1 float64 `json:"harmful_top1"`
}

// EvaluateAdapt ranks every skill for each held-back and harmful context by
// the routing score max(cos(q, full), cos(q, name)). Ties count against the
// model (a skill tied with another is not ranked above it), so a model that
// cannot tell skills apart scores low rather than by luck of order.
func EvaluateAdapt(e models.Embedder, d AdaptData) (AdaptMetrics, error) {
	var m AdaptMetrics
	texts := make([]string, 0, 2*len(d.Skills))
	for _, s := range d.Skills {
		texts = append(texts, s.Full, s.Name)
	}
	docs, err := e.Embed(texts, models.Document)
	if err != nil {
		return m, err
	}
	rank := func(qs []AdaptExample) ([]int, error) {
		texts := make([]string, len(qs))
		for i, q := range qs {
			texts[i] = q.Context
		}
		vecs, err := e.Embed(texts, models.Query)
		if err != nil {
			return nil, err
		}
		ranks := make([]int, len(qs))
		scores := make([]float64, len(d.Skills))
		for i, q := range vecs {
			for j := range d.Skills {
				scores[j] = math.Max(dot32(q, docs[2*j]), dot32(q, docs[2*j+1]))
			}
			own := scores[qs[i].Skill]
			ranks[i] = 1
			for j, s := range scores {
				if j != qs[i].Skill && s >= own {
					ranks[i]++
				}
			}
		}
		return ranks, nil
	}
	held, err := rank(d.Held)
	if err != nil {
		return m, err
	}
	m.Held = len(held)
	for _, r := range held {
		if r == 1 {
			m.R1++
		}
		if r <= 5 {
			m.R5++
		}
		m.MRR += 1 / float64(r)
	}
	if m.Held > 0 {
		m.R1, m.R5, m.MRR = m.R1/float64(m.Held), m.R5/float64(m.Held), m.MRR/float64(m.Held)
	}
	harm, err := rank(d.Harmful)
	if err != nil {
		return m, err
	}
	m.Harmful = len(harm)
	for _, r := range harm {
		if r == 1 {
			m.HarmfulTop1++
		}
	}
	if m.Harmful > 0 {
		m.HarmfulTop1 /= float64(m.Harmful)
	}
	return m, nil
}

func dot32(a, b []float32) float64 {
	var s float32
	for i := range min(len(a), len(b)) {
		s += a[i] * b[i]
	}
	return float64(s)
}

// DecideAdapt keeps the adapted model only when held-back MRR strictly
// improves (or stays equal while recall@1 improves) and harmful contexts do
// not rank their skill first more often; why says which held.
func DecideAdapt(before, after AdaptMetrics) (keep bool, why string) {
	const eps = 1e-9
	switch {
	case after.HarmfulTop1 > before.HarmfulTop1+eps:
		return false, fmt.Sprintf("harmful top-1 rate rose from %.3f to %.3f", before.HarmfulTop1, after.HarmfulTop1)
	case after.MRR > before.MRR+eps:
		return true, fmt.Sprintf("held-back MRR rose from %.3f to %.3f", before.MRR, after.MRR)
	case after.MRR >= before.MRR-eps && after.R1 > before.R1+eps:
		return true, fmt.Sprintf("held-back MRR unchanged at %.3f, recall@1 rose from %.3f to %.3f", after.MRR, before.R1, after.R1)
	case after.MRR < before.MRR-eps:
		return false, fmt.Sprintf("held-back MRR fell from %.3f to %.3f", before.MRR, after.MRR)
	}
	return false, fmt.Sprintf("held-back MRR (%.3f) and recall@1 (%.3f) did not improve", after.MRR, after.R1)
}

// AdaptConfig holds adapt's hyperparameters: a short, gentle fine-tune that
// warm-starts from the base table.
type AdaptConfig struct {
	Epochs   int
	LR       float64
	Batch    int // 0: min(pairs, 256)
	Seed     uint64
	Quantize bool // judge (and later save) the int8 round trip of the table
}

// DefaultAdaptConfig is what `megagit model adapt` uses without flags.
func DefaultAdaptConfig() AdaptConfig {
	return AdaptConfig{Epochs: 20, LR: 0.01, Seed: 1, Quantize: true}
}

// AdaptResult is one adapt run: the metrics either side, the decision, and
// the adapted table (kept or not, so callers can report on it).
type AdaptResult struct {
	Before, After AdaptMetrics
	Keep          bool
	Why           string
	Pairs         int
	Train         train.Config
	Table         []float32 // vocab × Dim, after the int8 round trip when Quantize
	Dim           int
}

// Adapt fine-tunes base on d.Train and judges base and result on d.Held and
// d.Harmful. It fails with ErrTooLittleEvidence before training when the
// evidence cannot support a verdict.
func Adapt(ctx context.Context, base *models.StaticModel, d AdaptData, cfg AdaptConfig, progress func(train.Progress)) (*AdaptResult, error) {
	if n := d.Helpful(); n < MinAdaptHelpful {
		return nil, fmt.Errorf("%w: %d usable helpful contexts, need at least %d", ErrTooLittleEvidence, n, MinAdaptHelpful)
	}
	if len(d.Held) == 0 {
		return nil, fmt.Errorf("%w: no helpful context could be held back to judge the result (a skill needs two or more)", ErrTooLittleEvidence)
	}
	pairs := AdaptPairs(base.Tokenizer(), d)
	if len(pairs) < 2 {
		return nil, fmt.Errorf("%w: %d trainable pairs, need at least 2", ErrTooLittleEvidence, len(pairs))
	}
	before, err := EvaluateAdapt(base, d)
	if err != nil {
		return nil, err
	}
	init, dim := base.Table()
	tc := train.DefaultConfig()
	tc.Dim, tc.Epochs, tc.LR, tc.Seed = dim, cfg.Epochs, cfg.LR, cfg.Seed
	tc.Batch = cfg.Batch
	if tc.Batch <= 0 {
		tc.Batch = min(len(pairs), 256)
	}
	tc.CheckpointDir, tc.CheckpointEvery = "", 0
	vocab := base.Tokenizer().VocabSize()
	table, err := train.Train(ctx, pairs, vocab, tc, init, progress)
	if err != nil {
		return nil, err
	}
	if cfg.Quantize {
		q, scales := models.QuantizeRows(table, vocab, dim)
		table = models.DequantizeRows(q, scales, vocab, dim)
	}
	adapted, err := models.NewStatic(base.ID()+"-adapted", dim, table)
	if err != nil {
		return nil, err
	}
	after, err := EvaluateAdapt(adapted, d)
	if err != nil {
		return nil, err
	}
	keep, why := DecideAdapt(before, after)
	return &AdaptResult{Before: before, After: after, Keep: keep, Why: why, Pairs: len(pairs),
		Train: tc, Table: table, Dim: dim}, nil
}

// AdaptedID names an adapted model: the base id (without an earlier
// "-adapted-" suffix), the day, and a short hash of the table, so two
// adaptations never share an id and so never share cached vectors.
func AdaptedID(baseID string, day time.Time, table []float32) string {
	if i := strings.Index(baseID, "-adapted-"); i > 0 {
		baseID = baseID[:i]
	}
	h := sha256.New()
	buf := make([]byte, 0, 1<<16)
	for i, v := range table {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
		if len(buf) == cap(buf) || i == len(table)-1 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	return fmt.Sprintf("%s-adapted-%s-%s", baseID, day.UTC().Format("20060102"), hex.EncodeToString(h.Sum(nil))[:8])
}
