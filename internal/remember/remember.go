// Package remember is what mem does with a project's memory, whoever asks:
// a hook's turn, a command, the MCP server, the viewer, an eval driver. It
// answers a turn with prompt-time context, builds the recall blocks, writes
// summaries and runs the nightly job.
//
// It owns the transactions: each use case opens the one it needs
// (store.DB.Write or Read) and passes it down to the feature packages and
// the store, which open none of their own. Given a DB already in a
// transaction (a hook turn's), a use case runs in that one, so a hook turn
// is one write transaction however many steps it takes.
package remember

import (
	"errors"
	"time"

	"github.com/memhq/mem/internal/agentmem"
	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/recall"
)

// Engine runs the use cases over the effective configuration.
type Engine struct {
	cfg    *config.Config
	now    func() time.Time
	recall recall.Settings
	agents agentmem.Env // where the agents keep their own memory files
	// logf takes what goes wrong without withholding a reply (SetLog).
	logf func(format string, args ...any)
}

// New returns the engine over cfg, telling time by now; both are required.
func New(cfg *config.Config, now func() time.Time) (*Engine, error) {
	switch {
	case cfg == nil:
		return nil, errors.New("remember: no configuration")
	case now == nil:
		return nil, errors.New("remember: no clock")
	}
	return &Engine{cfg: cfg, now: now, recall: recall.SettingsFrom(cfg.Settings)}, nil
}

// SetLog sends to logf what goes wrong without withholding a reply: what
// was given and could not be recorded as given, what a citation check
// learnt and could not keep. Without it, those are dropped.
func (e *Engine) SetLog(logf func(format string, args ...any)) { e.logf = logf }

// warn hands err, if any, to the log SetLog gave.
func (e *Engine) warn(err error) {
	if err != nil && e.logf != nil {
		e.logf("%v", err)
	}
}

// Config is the configuration the engine runs with.
func (e *Engine) Config() *config.Config { return e.cfg }
