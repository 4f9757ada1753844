package remember

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/memhq/mem/internal/cite"
	"github.com/memhq/mem/internal/collector"
	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/fsafe"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/search"
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/triggers"
)

// Turn is what an agent's turn tells the prompt-time pipeline.
type Turn struct {
	Session memory.Session
	// Prompt is the prompt's text, past the privacy filter; "" for a tool
	// call.
	Prompt string
	// Tool: the turn is a tool call, which read Read and changed Edited
	// (relative to Root).
	Tool         bool
	Read, Edited []string
	// Deliver: the agent takes context after a tool call.
	Deliver bool
	Root    string // the project's work tree root
	Room    int    // characters left under the agent's cap; negative: no cap
}

// TurnContext answers a prompt or a tool call with prompt-time context: a
// prompt runs the keyword and memory-trigger sources, a tool call the file
// sources for the files it read or changed; then the session's pending
// context is consumed as one block. After a tool call the block is given
// only when the agent takes context there (Deliver); otherwise it waits for
// the next prompt. scripts/eval measures prompt-time context through it.
func (e *Engine) TurnContext(ctx context.Context, db *store.DB, t Turn) (string, error) {
	ts := triggers.Session{ID: t.Session.ID, Project: t.Session.Project, Root: t.Root}
	// Leave room for the separator the hook puts between parts; a negative
	// room means no cap.
	limit := t.Room - 2
	if t.Room < 0 {
		limit = 0
	}
	if t.Tool {
		block, _, err := e.FileContext(ctx, db, ts, t.Read, t.Edited, t.Deliver, limit)
		return block, err
	}
	block, _, err := e.PromptContext(ctx, db, ts, t.Prompt, limit)
	return block, err
}

// PromptContext runs a prompt's sources for a session and returns what the
// session gets at this turn (the consumed and persistent entries as one XML
// block, at most maxChars long; "" for nothing), in one write transaction.
// The prompt must have passed the privacy filter.
func (e *Engine) PromptContext(ctx context.Context, db *store.DB, s triggers.Session, prompt string, maxChars int) (block string, rep triggers.Report, err error) {
	c, err := e.sources()
	if err != nil {
		return "", triggers.Report{}, err
	}
	err = db.Write(ctx, func(tx *store.DB) error {
		eng := e.triggers(tx, c)
		if rep, err = eng.OnPrompt(ctx, s, prompt); err != nil {
			return err
		}
		es, err := e.Collector(tx).Consume(ctx, s.ID, maxChars)
		block = e.give(ctx, tx, s, es)
		return err
	})
	return block, rep, err
}

// FileContext registers what touched files bring; with deliver it also
// consumes the session's pending context at once (for agents that take
// context after a tool call), persistent entries excepted: those come with
// each turn, not with each tool call. One write transaction.
func (e *Engine) FileContext(ctx context.Context, db *store.DB, s triggers.Session, read, edited []string, deliver bool, maxChars int) (block string, rep triggers.Report, err error) {
	// Keywords are a prompt's: their files are not read for a tool call.
	c := triggers.ConfigFrom(e.cfg.Settings.Context)
	err = db.Write(ctx, func(tx *store.DB) error {
		eng := e.triggers(tx, c)
		for _, f := range []struct {
			paths []string
			edit  bool
		}{{edited, true}, {read, false}} {
			for _, p := range f.paths {
				r, err := eng.OnFile(ctx, s, p, f.edit)
				rep.Registered = append(rep.Registered, r.Registered...)
				if err != nil {
					return err
				}
			}
		}
		if !deliver {
			return nil
		}
		es, err := e.Collector(tx).ConsumeNew(ctx, s.ID, maxChars)
		block = e.give(ctx, tx, s, es)
		return err
	})
	return block, rep, err
}

// give renders the entries consumed for s in tx as one block and records
// them as given; a failure to record does not withhold them (it is logged).
func (e *Engine) give(ctx context.Context, tx *store.DB, s triggers.Session, es []memory.PendingEntry) string {
	if len(es) == 0 {
		return ""
	}
	e.warn(recordConsumed(ctx, tx, s, es, e.now()))
	return collector.Render(es)
}

// Collector returns the collector over db with the configured sources
// switched on: entries of a switched-off source are never delivered.
func (e *Engine) Collector(db collector.Store) *collector.Collector {
	return collector.New(db, e.now, func(source string) bool { return SourceEnabled(e.cfg, source) })
}

// SourceEnabled reads a source's context.<source> switch; sources mem does
// not know (what scripts register) follow context.custom.
func SourceEnabled(cfg *config.Config, source string) bool {
	c := cfg.Settings.Context
	switch source {
	case triggers.SourceMemory:
		return c.MemoryTriggers
	case triggers.SourceFiles:
		return c.FileActivity
	case triggers.SourceAgents:
		return c.DirectoryAgents
	case triggers.SourceReadme:
		return c.DirectoryReadme
	case triggers.SourceRules:
		return c.RulesInjector
	case triggers.SourceKeywords:
		return c.KeywordDetector
	}
	return c.Custom
}

// sources reads the context sources' configuration for a prompt, the
// keyword files among it.
func (e *Engine) sources() (triggers.Config, error) {
	c := triggers.ConfigFrom(e.cfg.Settings.Context)
	if c.Keywords {
		pairs, err := keywordPairs(e.cfg.Settings.Context.Keywords, filepath.Dir(e.cfg.File))
		if err != nil {
			return c, err
		}
		c.KeywordPairs = pairs
	}
	return c, nil
}

// triggers returns the context sources over tx.
func (e *Engine) triggers(tx *store.DB, c triggers.Config) *triggers.Engine {
	return &triggers.Engine{Pending: tx, Files: tx, Search: search.Over(tx), Prompts: tx, Summaries: tx, Citations: &cite.Checker{Store: tx, Keep: true},
		Config: c, Now: e.now}
}

// maxKeywordFile bounds a keyword file.
const maxKeywordFile = 64 << 10

// keywordPairs reads context.keywords: keyword=file entries, the file's
// text being what a prompt with the keyword gets. Relative files are in the
// config folder. The files are the user's choice, so links are followed,
// but a FIFO or device is refused rather than waited on.
func keywordPairs(list []string, dir string) ([]triggers.Keyword, error) {
	var out []triggers.Keyword
	for _, item := range list {
		word, file, ok := strings.Cut(item, "=")
		word, file = strings.TrimSpace(word), strings.TrimSpace(file)
		if !ok || word == "" || file == "" {
			return nil, memory.Invalid("context.keywords", "keyword=file entries", item)
		}
		if strings.HasPrefix(file, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				file = filepath.Join(home, file[2:])
			}
		}
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		b, err := fsafe.ReadFile(file, maxKeywordFile)
		if err != nil {
			return nil, memory.Invalid("context.keywords", "keyword=file entries naming readable regular files of at most 64 KiB", item)
		}
		out = append(out, triggers.Keyword{Word: word, Text: string(b)})
	}
	return out, nil
}
