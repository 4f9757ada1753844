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

// Config is the configuration the engine runs with.
func (e *Engine) Config() *config.Config { return e.cfg }
