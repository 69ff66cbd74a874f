package skillfile

import (
	"errors"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/megagit/megagit/errkind"
	"gopkg.in/yaml.v3"
)

// Lint severities: errors make `megagit lint` fail, warnings only inform.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// maxDescriptionLength is the agentskills.io limit on `description`.
const maxDescriptionLength = 1024

// maxListingLength is Claude Code's limit on description and when_to_use
// together, what it lists for a skill.
const maxListingLength = 1536

// Problem is one lint finding, shaped for both a terminal line and --json.
type Problem struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Field    string `json:"field"`
	Message  string `json:"message"`
	Severity string `json:"severity"` // "error" | "warning"
}

// Lint reports every problem of one SKILL.md at once (not just the
// first) so a user can fix a file in one pass. dirName is the skill's folder.
func Lint(dirName, path string, data []byte) []Problem {
	var ps []Problem
	add := func(sev string, line int, field, msg string) {
		ps = append(ps, Problem{File: path, Line: line, Field: field, Message: msg, Severity: sev})
	}
	if err := ValidateName(dirName); err != nil {
		add(SeverityError, 0, "name", "folder name: "+strings.TrimPrefix(err.Error(), errkind.ErrInvalid.Error()+": "))
	}
	f, err := Parse(path, data)
	if err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			add(SeverityError, fe.Line, fe.Field, fe.Msg)
		} else {
			add(SeverityError, 0, "", err.Error())
		}
		return ps
	}

	if k, v := f.topKey("name"); k == nil {
		add(SeverityError, f.closeLine, "name", "missing; add `name: "+dirName+"`")
	} else if v.Kind != yaml.ScalarNode {
		add(SeverityError, f.fileLine(v.Line), "name", "must be a string, found "+fmKindName(v))
	} else if name := f.Name(); strings.TrimSpace(name) == "" {
		add(SeverityError, f.fileLine(v.Line), "name", "is empty")
	} else if name != dirName {
		add(SeverityError, f.fileLine(v.Line), "name", "\""+name+"\" does not match the folder name \""+dirName+"\"")
	}

	if k, v := f.topKey("description"); k == nil {
		add(SeverityError, f.closeLine, "description", "missing; hosts pick skills by their description")
	} else if v.Kind != yaml.ScalarNode {
		add(SeverityError, f.fileLine(v.Line), "description", "must be a string, found "+fmKindName(v))
	} else if d := f.Description(); d == "" {
		add(SeverityError, f.fileLine(v.Line), "description", "is empty")
	} else if n := utf8.RuneCountInString(strings.TrimSpace(v.Value)); n > maxDescriptionLength {
		add(SeverityWarning, f.fileLine(v.Line), "description",
			"is "+strconv.Itoa(n)+" characters; hosts may cut it at "+strconv.Itoa(maxDescriptionLength))
	}

	if k, v := f.topKey("when_to_use"); k != nil && v.Kind != yaml.ScalarNode {
		add(SeverityError, f.fileLine(v.Line), "when_to_use", "must be a string, found "+fmKindName(v))
	} else if n := utf8.RuneCountInString(f.Listing()); k != nil && n > maxListingLength {
		add(SeverityWarning, f.fileLine(v.Line), "when_to_use",
			"description and when_to_use are "+strconv.Itoa(n)+" characters together; Claude Code cuts them at "+strconv.Itoa(maxListingLength))
	}

	if _, err := f.Paths(); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			add(SeverityError, fe.Line, fe.Field, fe.Msg)
		}
	}
	if k, v := f.topKey("disable-model-invocation"); k != nil && (v.Kind != yaml.ScalarNode || v.Value != "true" && v.Value != "false") {
		add(SeverityWarning, f.fileLine(v.Line), "disable-model-invocation", "is neither true nor false; Claude Code reads it as false (the model may pick the skill)")
	}

	p := f.parseEvidence()
	for _, fe := range p.errs {
		add(SeverityError, fe.Line, fe.Field, fe.Msg)
	}
	for i := 0; i+1 < len(p.unknown); i += 2 {
		k := p.unknown[i]
		add(SeverityWarning, f.fileLine(k.Line), evidenceKey+"."+k.Value, "unknown key; megagit keeps it but does not use it")
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Line < ps[j].Line })
	return ps
}
