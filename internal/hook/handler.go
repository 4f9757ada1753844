package hook

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/memhq/mem/internal/capture"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/privacy"
	"github.com/memhq/mem/internal/project"
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/switches"
	"github.com/memhq/mem/internal/termsafe"
)

// Recall modes.
const (
	ModeStart   = "start"   // the session-start block
	ModeCompact = "compact" // the block given after compaction
)

// RecallFunc renders the recall block of a session (what `mem inject` prints).
type RecallFunc func(ctx context.Context, db *store.DB, s memory.Session, mode string) (string, error)

// SummarizeFunc writes the summary of a session as it stands now.
type SummarizeFunc func(ctx context.Context, db *store.DB, sessionID string, at time.Time) error

// ContextTurn is what a ContextFunc is told of the turn it answers, so it
// does not resolve the project or analyse the tool call again.
type ContextTurn struct {
	Session memory.Session
	Event   Event    // a prompt's text has passed the privacy filter
	Root    string   // the project's work tree root
	Read    []string // files the tool call read, relative to Root
	Edited  []string // files the tool call changed, relative to Root
	Room    int      // characters left under the agent's cap; negative: no cap
}

// ContextFunc answers a prompt or a tool call with context the session is
// waiting for (prompt-time recall), or "".
type ContextFunc func(ctx context.Context, db *store.DB, t ContextTurn) (string, error)

// Handler does what an event calls for. Open, Project and Switches are
// required; Recall, Summarize and Context may be nil (then that part is
// skipped).
type Handler struct {
	Open      func(ctx context.Context) (*store.DB, error)
	Project   func(dir string) (project.Identity, error)
	Switches  func(root string) switches.Decision
	Getwd     func() (string, error)
	Now       func() time.Time
	Recall    RecallFunc
	Summarize SummarizeFunc
	Context   ContextFunc
	// MaxChars caps injected text (Claude Code cuts at 10,000 characters).
	MaxChars int
	Logf     func(format string, args ...any)
}

// Marks the hook keeps on sessions.
const (
	markKind      = "hook"
	markCompacted = "compacted" // Gemini compressed the context: the next prompt gets the compaction block
)

// Handle does what ev calls for and returns the reply.
func (h *Handler) Handle(ctx context.Context, ev Event) (Reply, error) {
	if ev.Kind == KindIgnored {
		return Reply{}, nil
	}
	// What the event says of its session is stored: it passes the filter
	// like all else, ids deterministically so that they stay keys; an id
	// with control characters is kept escaped (ESC as \x1b), so the
	// session's events still meet under one id, which prints as it is.
	ev.SessionID, ev.ParentID = termsafe.Line(privacy.FilterID(ev.SessionID)), termsafe.Line(privacy.FilterID(ev.ParentID))
	ev.AgentType = privacy.Filter(ev.AgentType)
	if err := memory.ValidateSessionID("session_id", ev.SessionID); err != nil {
		return Reply{}, err
	}
	dir := ev.ProjectDir
	if dir == "" {
		dir = ev.Cwd
	}
	if dir == "" && h.Getwd != nil {
		dir, _ = h.Getwd()
	}
	id, err := h.Project(dir)
	if err != nil {
		return Reply{}, fmt.Errorf("resolving the project of %s: %w", privacy.Filter(dir), err)
	}
	sw := h.Switches(id.Root)
	if !sw.Inject && !sw.Capture {
		return Reply{}, nil // opted out: not even the database is opened
	}
	db, err := h.Open(ctx)
	if err != nil {
		return Reply{}, err
	}
	cwd := ev.Cwd
	if cwd == "" {
		cwd = dir
	}
	s := memory.Session{ID: ev.SessionID, Project: id.Key, Agent: ev.Agent, AgentType: ev.AgentType,
		Cwd: privacy.Filter(cwd), ParentID: ev.ParentID, StartedAt: h.now()}
	t := turn{h: h, db: db, ev: ev, s: s, root: id.Root, capture: sw.Capture, inject: sw.Inject}
	return t.run(ctx)
}

func (h *Handler) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

func (h *Handler) logf(format string, args ...any) {
	if h.Logf != nil {
		h.Logf(format, args...)
	}
}

// turn is one event being handled.
type turn struct {
	h       *Handler
	db      *store.DB
	ev      Event
	s       memory.Session
	root    string
	capture bool
	inject  bool
}

func (t *turn) run(ctx context.Context) (Reply, error) {
	switch t.ev.Kind {
	case KindSessionStart:
		if t.capture {
			s, _, err := t.db.StartSession(ctx, t.s)
			if err != nil {
				return Reply{}, err
			}
			t.s = s
		}
		return t.block(ctx, ModeStart)
	case KindSystem:
		if err := t.ensure(ctx); err != nil {
			return Reply{}, err
		}
		return t.block(ctx, ModeStart)
	case KindCompacted:
		if err := t.ensure(ctx); err != nil {
			return Reply{}, err
		}
		if t.ev.Agent == AgentOpenCode {
			// OpenCode's compacting hook runs before the compaction: checkpoint first.
			t.checkpoint(ctx)
		}
		return t.block(ctx, ModeCompact)
	case KindPrompt:
		return t.prompt(ctx)
	case KindTool:
		return t.tool(ctx)
	case KindPreCompact:
		if !t.capture {
			return Reply{}, nil
		}
		if err := t.ensure(ctx); err != nil {
			return Reply{}, err
		}
		t.checkpoint(ctx)
		if t.ev.Agent == AgentGemini {
			if _, err := t.db.PutSessionMark(ctx, t.s.ID, markKind, markCompacted, t.h.now()); err != nil {
				return Reply{}, err
			}
		}
		return Reply{}, nil
	case KindStop:
		if !t.capture || strings.TrimSpace(t.ev.Message) == "" {
			return Reply{}, nil
		}
		if err := t.ensure(ctx); err != nil {
			return Reply{}, err
		}
		return Reply{}, t.db.SetLastMessage(ctx, t.s.ID, cutText(privacy.Filter(t.ev.Message)), t.h.now())
	case KindSubagentStop:
		if !t.capture {
			return Reply{}, nil
		}
		if msg := strings.TrimSpace(t.ev.Message); msg != "" {
			if err := t.ensure(ctx); err != nil {
				return Reply{}, err
			}
			if err := t.db.SetLastMessage(ctx, t.s.ID, cutText(privacy.Filter(msg)), t.h.now()); err != nil {
				return Reply{}, err
			}
		}
		return Reply{}, t.end(ctx)
	case KindSessionEnd:
		if !t.capture {
			return Reply{}, nil
		}
		return Reply{}, t.end(ctx)
	}
	return Reply{}, nil
}

// ensure makes sure the session exists when capture is on, and loads it. It
// reads first: most events come to a session that exists, and a read takes
// no write lock from the other hooks firing at the same time.
func (t *turn) ensure(ctx context.Context) error {
	if !t.capture {
		return nil
	}
	s, err := t.db.Session(ctx, t.s.ID)
	stale := err == nil && (t.s.AgentType != "" && t.s.AgentType != s.AgentType || t.s.ParentID != "" && s.ParentID == "")
	if errors.Is(err, memory.ErrNotFound) || stale {
		s, err = t.db.EnsureSession(ctx, t.s)
	}
	if err != nil {
		return err
	}
	t.s = s
	return nil
}

// end marks the session ended (dropping its pending context) and writes its
// summary. A session mem never saw is left alone.
func (t *turn) end(ctx context.Context) error {
	if _, err := t.db.EndSession(ctx, t.s.ID, t.h.now()); err != nil {
		if errors.Is(err, memory.ErrNotFound) {
			return nil
		}
		return err
	}
	if t.h.Summarize != nil {
		if err := t.h.Summarize(ctx, t.db, t.s.ID, t.h.now()); err != nil {
			return fmt.Errorf("summarizing session %s: %w", t.s.ID, err)
		}
	}
	return nil
}

// checkpoint persists the session so far before the agent compacts its
// context: the summary of the session up to now, which the compaction block
// then carries and SessionEnd later replaces.
func (t *turn) checkpoint(ctx context.Context) {
	if !t.capture || t.h.Summarize == nil {
		return
	}
	if err := t.h.Summarize(ctx, t.db, t.s.ID, t.h.now()); err != nil {
		t.h.logf("checkpoint of session %s: %v", t.s.ID, err)
	}
}

// block answers with a recall block when injection is on.
func (t *turn) block(ctx context.Context, mode string) (Reply, error) {
	if !t.inject || t.h.Recall == nil {
		return Reply{}, nil
	}
	b, err := t.h.Recall(ctx, t.db, t.s, mode)
	if err != nil {
		return Reply{}, fmt.Errorf("building the %s block: %w", mode, err)
	}
	return t.reply(b), nil
}

// reply keeps injected text within the agent's cap: an over-long block is
// not cut (that would break its markup) but left out, and logged.
func (t *turn) reply(parts ...string) Reply {
	var kept []string
	n := 0
	for _, p := range parts {
		if strings.TrimSpace(p) == "" {
			continue
		}
		l := utf8.RuneCountInString(p) + 2
		if t.h.MaxChars > 0 && n+l > t.h.MaxChars {
			t.h.logf("left out %d characters of context: over the cap of %d", l, t.h.MaxChars)
			continue
		}
		kept = append(kept, p)
		n += l
	}
	return Reply{Context: strings.Join(kept, "\n\n")}
}

func (t *turn) prompt(ctx context.Context) (Reply, error) {
	// Filtered once, for the record and for the context sources alike.
	t.ev.Prompt = privacy.Filter(t.ev.Prompt)
	var parts []string
	if t.capture {
		if err := t.ensure(ctx); err != nil {
			return Reply{}, err
		}
		if text := t.ev.Prompt; !privacy.IsEmpty(text) {
			p, err := t.db.AddPrompt(ctx, t.s.ID, cutText(text), t.h.now())
			if err != nil {
				return Reply{}, err
			}
			t.s.PromptCount = p.PromptNumber
		}
		if t.ev.Agent == AgentGemini && t.inject {
			took, err := t.db.TakeSessionMark(ctx, t.s.ID, markKind, markCompacted)
			if err != nil {
				return Reply{}, err
			}
			if took && t.h.Recall != nil {
				b, err := t.h.Recall(ctx, t.db, t.s, ModeCompact)
				if err != nil {
					return Reply{}, err
				}
				parts = append(parts, b)
			}
		}
	}
	return t.promptContext(ctx, parts)
}

// promptContext adds what the session is waiting for (prompt-time recall).
func (t *turn) promptContext(ctx context.Context, parts []string) (Reply, error) {
	return t.context(ctx, parts, nil, nil)
}

// context adds what the session is waiting for after the other parts of the
// reply; read and edited are the files of a tool call.
func (t *turn) context(ctx context.Context, parts, read, edited []string) (Reply, error) {
	if t.inject && t.h.Context != nil {
		// The context is consumed as it is built, so it must fit beside the
		// other parts: what is left out stays pending for the next turn.
		room := -1
		if t.h.MaxChars > 0 {
			room = t.h.MaxChars
			for _, p := range parts {
				if strings.TrimSpace(p) != "" {
					room -= utf8.RuneCountInString(p) + 2
				}
			}
			if room <= 2 {
				return t.reply(parts...), nil
			}
		}
		c, err := t.h.Context(ctx, t.db, ContextTurn{Session: t.s, Event: t.ev, Root: t.root,
			Read: read, Edited: edited, Room: room})
		if err != nil {
			return t.reply(parts...), err
		}
		parts = append(parts, c)
	}
	return t.reply(parts...), nil
}

func (t *turn) tool(ctx context.Context) (Reply, error) {
	if t.capture {
		// The session as stored gives the prompt number the capture records.
		if err := t.ensure(ctx); err != nil {
			return Reply{}, err
		}
	}
	w := capture.Where{SessionID: t.s.ID, Root: t.root, Cwd: t.s.Cwd, PromptNumber: t.s.PromptCount, AgentType: t.s.AgentType}
	if t.ev.Cwd != "" {
		w.Cwd = t.ev.Cwd
	}
	r := capture.Analyze(t.ev.Call, w)
	var edited []string
	if r.Observation != nil {
		edited = r.Observation.FilesModified
	}
	if !t.capture {
		return t.context(ctx, nil, r.FilesRead, edited)
	}
	now := t.h.now()
	if len(r.FilesRead) > 0 {
		if err := t.db.AddFilesRead(ctx, t.s.ID, r.FilesRead, now); err != nil {
			return Reply{}, err
		}
	}
	o := r.Observation
	if r.Check != nil {
		last, err := t.lastCommandOutcome(ctx)
		if err != nil {
			return Reply{}, err
		}
		o = capture.Success(*r.Check, last, w, t.ev.Call.Tool)
	}
	if o != nil {
		o.CreatedAt = now
		if _, err := t.db.AddObservation(ctx, *o); err != nil {
			return Reply{}, err
		}
	}
	return t.context(ctx, nil, r.FilesRead, edited)
}

// lastCommandOutcome returns the session's newest problem from a failed
// command or success of a check, or nil.
func (t *turn) lastCommandOutcome(ctx context.Context) (*memory.Observation, error) {
	list, err := t.db.ListObservations(ctx, store.ObservationFilter{SessionID: t.s.ID,
		Types: []memory.Type{memory.TypeProblem, memory.TypeSuccess}, Limit: 20})
	if err != nil {
		return nil, err
	}
	for i := range list {
		for _, c := range list[i].Concepts {
			if c == capture.ConceptCommandFailed || c == capture.ConceptCheck {
				return &list[i], nil
			}
		}
	}
	return nil, nil
}

// cutText keeps text within the store's limit, on a character boundary.
func cutText(s string) string {
	if len(s) <= memory.MaxTextLen {
		return s
	}
	s = s[:memory.MaxTextLen]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}
