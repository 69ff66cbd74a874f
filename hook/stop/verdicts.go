package stop

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/megagit/megagit/hook"
	"github.com/megagit/megagit/lifecycle"
	"github.com/megagit/megagit/registry"
	"github.com/megagit/megagit/registry/ledger"
	"github.com/megagit/megagit/safetext"
)

// ledgerHas reports whether the ledger already holds a verdict of this
// session for skill from source (the ledger keeps session ids cleaned).
func ledgerHas(ledgers map[string][]ledger.Entry, skill, session, source string) bool {
	session, _ = safetext.Session.Clean(session)
	for _, en := range ledgers[skill] {
		if en.Session == session && en.Source == source && en.Action == "" {
			return true
		}
	}
	return false
}

// explicitVerdicts turns the session's new <skill-used/> tags into
// verdicts, marking each tag processed; log records the tags it ignores.
func explicitVerdicts(log func(error), sess *hook.Session, turns []Turn, ledgers map[string][]ledger.Entry) []registry.VerdictInput {
	var out []registry.VerdictInput
	native := map[string]bool{} // skills loaded with the skill tool given a verdict in this run
	for ti, turn := range turns {
		for _, tx := range turn.Texts {
			if len(tx.Text) > MaxTagText && strings.Contains(tx.Text[MaxTagText:], "<skill-used") {
				log(fmt.Errorf("a message of %d bytes: tags after its first %d MiB are not read", len(tx.Text), MaxTagText>>20))
			}
			for _, tag := range ParseTags(tx.Text) {
				key := tx.Key + "/" + strconv.Itoa(tag.Index)
				if sess.Seen(key) {
					continue
				}
				sess.Mark(key)
				inj := sess.Injected(tag.Name)
				if inj == nil {
					v, ok := loadedVerdict(log, sess, turns, ti, tag, ledgers, native)
					if ok {
						out = append(out, v)
					}
					continue
				}
				if at := LocateTurn(turns, *inj); inj.Explicit || (at >= 0 && ti < at) ||
					ledgerHas(ledgers, tag.Name, sess.ID, ledger.SourceExplicit) {
					continue
				}
				inj.Explicit = true
				logClipped(log, tag)
				out = append(out, registry.VerdictInput{
					Skill: tag.Name, Verdict: lifecycle.Verdict(tag.Verdict), Reason: tag.Reason,
					Context: inj.Prompt, Session: sess.ID,
				})
			}
		}
	}
	return out
}

// loadedVerdict turns a tag about a skill megagit did not inject into a
// verdict when the assistant loaded that skill itself, with the agent's
// skill tool, in the tag's turn or before (one explicit verdict per skill
// and session, like an injected skill's); its context is the prompt of the
// turn that loaded it. Any other such tag is logged and ignored.
func loadedVerdict(log func(error), sess *hook.Session, turns []Turn, ti int, tag Tag, ledgers map[string][]ledger.Entry, done map[string]bool) (registry.VerdictInput, bool) {
	at := -1
	for i := 0; i <= ti && at < 0; i++ {
		for _, s := range turns[i].Skills {
			if s == tag.Name {
				at = i
				break
			}
		}
	}
	switch {
	case at < 0:
		log(fmt.Errorf("ignored tag for %s: neither injected by megagit nor loaded with the skill tool in session %s", tag.Name, sess.ID))
		return registry.VerdictInput{}, false
	case done[tag.Name] || ledgerHas(ledgers, tag.Name, sess.ID, ledger.SourceExplicit):
		return registry.VerdictInput{}, false // the first report about a skill is its verdict
	}
	done[tag.Name] = true
	logClipped(log, tag)
	return registry.VerdictInput{
		Skill: tag.Name, Verdict: lifecycle.Verdict(tag.Verdict), Reason: tag.Reason,
		Context: hook.Clip(turns[at].Prompt, hook.MaxPromptMemory), Session: sess.ID,
	}, true
}

// logClipped says that a tag's reason was clipped before it was recorded.
func logClipped(log func(error), tag Tag) {
	if tag.Note != "" {
		log(fmt.Errorf("%s tag for %s: %s", tag.Verdict, tag.Name, tag.Note))
	}
}

// implicitVerdicts turns the settled implicit outcomes of the session's
// injections into ledger lines, once per injection. An outcome with no
// signal is recorded only when the agent said nothing of the skill in the
// session either (no verdict in the ledger, none in explicit, this stop's
// own): that is a silent session, which the silence penalty counts; after
// a verdict it would say nothing the verdict did not.
func implicitVerdicts(sess *hook.Session, turns []Turn, ledgers map[string][]ledger.Entry, final bool, explicit []registry.VerdictInput) []registry.VerdictInput {
	judged := func(skill string) bool {
		for _, v := range explicit {
			if v.Skill == skill {
				return true
			}
		}
		return ledgerHas(ledgers, skill, sess.ID, ledger.SourceExplicit)
	}
	var out []registry.VerdictInput
	for i := range sess.Injections {
		inj := &sess.Injections[i]
		if inj.Implicit || ledgerHas(ledgers, inj.Skill, sess.ID, ledger.SourceImplicit) {
			inj.Implicit = true
			continue
		}
		o := ImplicitOutcome(turns, LocateTurn(turns, *inj), inj.Words, final)
		if !o.Settled {
			continue
		}
		inj.Implicit = true
		if o.Signal == SignalNone && judged(inj.Skill) {
			continue
		}
		v := lifecycle.Neutral
		switch {
		case o.Value > 0:
			v = lifecycle.Helpful
		case o.Value < 0:
			v = lifecycle.Harmful
		}
		out = append(out, registry.VerdictInput{
			Skill: inj.Skill, Verdict: v, Reason: "implicit " + o.Signal + ": " + o.Detail,
			Context: inj.Prompt, Session: sess.ID, Implicit: true, Outcome: o.Value,
		})
	}
	return out
}
