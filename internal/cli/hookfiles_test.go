package cli

import (
	"github.com/megagit/megagit/decisionlog"
	"github.com/megagit/megagit/hook"
)

// Local files the hooks keep in .megagit/local/ (see hook/inject), as the
// tests read them.
const (
	hookLogName     = hook.LogFile
	decisionLogName = decisionlog.File
)
