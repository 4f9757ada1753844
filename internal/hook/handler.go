package hook

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/memhq/mem/internal/capture"
	"github.com/memhq/mem/internal/cite"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/privacy"
	"github.com/memhq/mem/internal/project"
	"github.com/memhq/mem/internal/remember"
	"github.com/memhq/mem/internal/spool"
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/switches"
)

// Memory is what the hook asks of mem's memory beyond recording the event
// (remember.Engine). Each call runs in the transaction of the DB it is
// given.
type Memory interface {
	// Block renders a session's recall block: the session-start block, or
	// with compact the one given after compaction.
	Block(ctx context.Context, db *store.DB, s memory.Session, compact bool) (string, error)
	// Summarize writes the summary of a session as it stands at at.
	Summarize(ctx context.Context, db *store.DB, sessionID string, at time.Time) error
	// TurnContext answers a prompt or a tool call with the context the
	// session is waiting for (prompt-time recall), or "".
	TurnContext(ctx context.Context, db *store.DB, t remember.Turn) (string, error)
	// Refresh reads again the memory files outside the database that
	// changed since last read (the agents' own memories): a stat each when
	// none did.
	Refresh(ctx context.Context, db *store.DB, project, root string) error
}

// Deps are what a Handler works with. New refuses a missing one.
type Deps struct {
	Open     func(ctx context.Context) (*store.DB, error)
	Project  func(dir string) (project.Identity, error)
	Switches func(root string) switches.Decision
	Memory   Memory
	Getwd    func() (string, error)
	Now      func() time.Time
	Logf     func(format string, args ...any)
	// Spool keeps the events the database is too busy for (internal/spool/README.md).
	Spool *spool.Dir
	// DrainFor bounds how long Handle applies spooled events before its own.
	DrainFor time.Duration
	// MaxChars caps injected text (Claude Code cuts at 10,000 characters);
	// 0: no cap.
	MaxChars int
}

// Handler does what an event calls for.
type Handler struct {
	Deps
	built bool // by New, with every dependency

	mu      sync.Mutex
	durable chan struct{} // closed once the event being handled is recorded or spooled
}

// New returns the handler over d, or an error naming the dependency d
// lacks.
func New(d Deps) (*Handler, error) {
	for _, c := range []struct {
		name    string
		missing bool
	}{
		{"Open", d.Open == nil}, {"Project", d.Project == nil}, {"Switches", d.Switches == nil},
		{"Memory", d.Memory == nil}, {"Getwd", d.Getwd == nil}, {"Now", d.Now == nil},
		{"Logf", d.Logf == nil}, {"Spool", d.Spool == nil},
	} {
		if c.missing {
			return nil, fmt.Errorf("hook: the handler has no %s", c.name)
		}
	}
	if d.DrainFor < 0 || d.MaxChars < 0 {
		return nil, fmt.Errorf("hook: DrainFor %s and MaxChars %d must not be negative", d.DrainFor, d.MaxChars)
	}
	return &Handler{Deps: d, built: true}, nil
}

// Settle waits, at most d, until the event being handled is recorded or
// spooled, and reports whether it is (true as well when there is none).
// The hook calls it when its deadline cut the handling short, so that an
// event is not lost to a process ending in the middle of writing it.
func (h *Handler) Settle(d time.Duration) bool {
	h.mu.Lock()
	c := h.durable
	h.mu.Unlock()
	if c == nil {
		return true
	}
	select {
	case <-c:
		return true
	case <-time.After(d):
		return false
	}
}

// settling starts the handling of an event, from before it is read: Settle
// waits until the returned func is called (the event is recorded, spooled,
// or not to be kept).
func (h *Handler) settling() func() {
	durable := make(chan struct{})
	var once sync.Once
	h.mu.Lock()
	h.durable = durable
	h.mu.Unlock()
	return func() { once.Do(func() { close(durable) }) }
}

// Marks the hook keeps on sessions.
const (
	markKind      = "hook"
	markCompacted = "compacted" // the context was compacted: the next prompt gets the compaction block
)

// Handle does what ev calls for and returns the reply. What the event
// changes in the database, and a reply that changes it (pending context
// consumed), are done in one write transaction, after the spooled events
// that arrived before it; a reply that only reads (a recall block) is built
// in that transaction too when it records the event, else in one read
// transaction. When the database stays busy past the store's short wait,
// the event is spooled and the reply is empty.
func (h *Handler) Handle(ctx context.Context, ev Event) (Reply, error) {
	return h.handle(ctx, ev, h.settling())
}

// handle is Handle; settled is called once ev is recorded or spooled, or
// there is nothing to keep.
func (h *Handler) handle(ctx context.Context, ev Event, settled func()) (Reply, error) {
	defer settled()
	if !h.built {
		return Reply{}, errors.New("hook: the handler was not built by New")
	}
	if ev.Kind == KindIgnored {
		return Reply{}, nil
	}
	// What the event says of its session is stored under the key every
	// command and tool maps an id to (privacy.SessionKey): filtered
	// deterministically so that it stays a key, control characters kept
	// escaped, so the session's events still meet under one id.
	sid, err := privacy.SessionID("session_id", ev.SessionID)
	if err != nil {
		return Reply{}, err
	}
	ev.SessionID, ev.ParentID = sid, privacy.SessionKey(ev.ParentID)
	ev.AgentType = privacy.Filter(ev.AgentType)
	// A prompt is filtered once, before it is spooled, recorded or handed
	// to the context sources.
	ev.Prompt = privacy.Filter(ev.Prompt)
	// Where the transcript ends is read on arrival: a spooled event is
	// applied later, when the agent may have written more.
	if ev.CompactionUnsure {
		ev.TranscriptSize = transcriptSize(ev.Transcript)
	}
	dir := ev.ProjectDir
	if dir == "" {
		dir = ev.Cwd
	}
	if dir == "" {
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
	at := h.Now()
	j := job{V: jobVersion, ID: spool.NewID(at), At: at, Dir: dir, Project: id.Key, Root: id.Root, Event: ev}
	if sw.Capture {
		// Durable at arrival: on disk before the database is even opened,
		// so that a hook killed at any later point loses nothing.
		if j.held = h.hold(j); j.held != nil {
			settled()
		}
	}
	// The event is recorded, and the reply built, before the deadline less
	// answerMargin, or not at all.
	if deadline, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-answerMargin))
		defer cancel()
	}
	reply, busy, err := h.recordBy(ctx, j, sw.Capture, sw.Inject, settled)
	switch {
	case busy:
		return Reply{}, err
	case ctx.Err() != nil:
		if err == nil || errors.Is(err, ctx.Err()) {
			h.logf("no context: the reply was not ready %s before the deadline (the event is recorded)", answerMargin)
			return Reply{}, nil
		}
		return Reply{}, err
	case errors.Is(err, store.ErrBusy):
		// No context this turn: what waits for the session stays pending.
		return Reply{}, nil
	}
	return reply, err
}

// answerMargin is how long before its deadline Handle gives up building a
// reply, so that it replies nothing in time rather than something late.
const answerMargin = 100 * time.Millisecond

// SpoolMargin is how long before its deadline Handle stops waiting for the
// database and spools the event instead, so that a hook starved of CPU or
// of the database still answers in time without losing its event.
const SpoolMargin = 300 * time.Millisecond

// recordBy opens the database and handles j (turn.handle); when that has
// not finished SpoolMargin before ctx's deadline (and capture is on), j is
// spooled and busy is true. The work left running may still commit before
// the process ends: j's id, recorded with its changes, keeps it from being
// applied twice.
func (h *Handler) recordBy(ctx context.Context, j job, capture, inject bool, settled func()) (Reply, bool, error) {
	type result struct {
		reply Reply
		busy  bool
		err   error
	}
	// Events wait in the spool: the database was busy a moment ago. Waiting
	// for it again would only make this hook late: it gets it at once (and
	// applies them), or joins them.
	noWait := false
	if capture {
		n, _, _ := h.Spool.Len()
		noWait = n > 0
	}
	done := make(chan result, 1)
	go func() {
		reserveStack(0)
		var r result
		defer func() {
			if p := recover(); p != nil {
				r = result{err: fmt.Errorf("panic: %v\n%s", p, debug.Stack())}
			}
			settled()
			// Applied, or refused for good: the record goes. Queued (the
			// database could not take it): it stays, for the next drain.
			if j.held != nil {
				if err := j.held.Done(); err != nil {
					h.logf("removing the record of event %s: %v", j.ID, err)
				}
			}
			done <- r
		}()
		db, err := h.Open(ctx)
		if err != nil {
			if capture && spool.NotNow(err) {
				r = result{busy: true, err: h.spoolFor(j, err)}
			} else {
				r = result{err: err}
			}
			return
		}
		if noWait {
			db = db.WithWait(0)
		}
		r.reply, r.busy, r.err = h.turnIn(ctx, db, j, capture, inject)
	}()
	deadline, ok := ctx.Deadline()
	if ok {
		deadline = deadline.Add(answerMargin) // ctx's deadline is the reply's
	}
	if !ok || !capture {
		r := <-done
		return r.reply, r.busy, r.err
	}
	left := time.Until(deadline)
	timer := time.NewTimer(left - min(SpoolMargin, left/3))
	defer timer.Stop()
	select {
	case r := <-done:
		return r.reply, r.busy, r.err
	case <-timer.C:
		defer settled()
		if err := h.spool(j, "not recorded in time"); err != nil {
			return Reply{}, true, err
		}
		h.logf("not recorded within the deadline: event spooled as %s, to be applied by the next mem process", j.ID)
		return Reply{}, true, nil
	}
}

// turnIn handles j over db: at most one write transaction, which records
// the event (when capture is on) and builds the reply: one that changes the
// database (pending context consumed, marks taken), and a recall block when
// the transaction records the event (so that what the block's citation
// check learns is kept in it); one read transaction after it builds a
// recall block otherwise, and keeps nothing. The
// spooled events that arrived before j are applied first, each in its own
// transaction (record). busy reports that j was spooled.
func (h *Handler) turnIn(ctx context.Context, db *store.DB, j job, capture, inject bool) (reply Reply, busy bool, err error) {
	var t *turn
	var answerErr error
	answered := false // the reply was built in the write
	record := capture
	// The reply is built inside the transaction that records the event, and
	// a statement cut short by the deadline would roll all of it back: the
	// transaction's statements are not cancelled, the reply is dropped
	// after it when it came too late (Handle).
	work := func(tx *store.DB) error {
		t = h.turn(tx, j, capture, inject)
		if record {
			if err := t.record(ctx); err != nil {
				return err
			}
		}
		if inject && (record || !t.answerReads()) {
			reply, answerErr = t.answerInWrite(context.WithoutCancel(ctx))
			answered = true
		}
		return nil
	}
	if capture {
		var joined bool
		joined, busy, err = h.record(ctx, db, j, work)
		if busy || err != nil {
			return Reply{}, busy, err
		}
		// Joined: the event waits in the spool behind others, and the
		// reply is built without it.
		record = !joined
	}
	switch {
	case record:
	case inject && !answerReads(j.Event.Kind):
		if err := db.Write(ctx, work); err != nil {
			return Reply{}, false, err
		}
	default:
		t = h.turn(db, j, capture, inject)
	}
	if !inject || t == nil {
		return Reply{}, false, nil
	}
	if answered {
		return reply, false, answerErr
	}
	err = db.Read(ctx, func(rx *store.DB) error {
		reply, err = t.in(rx).answer(ctx)
		return err
	})
	return reply, false, err
}

// record applies the spooled events waiting (for at most h.DrainFor), then
// j's own, by work in one transaction with j's id. When some stay waiting,
// or another process is applying them, j joins them (joined, work not run),
// so that events are applied in the order they arrived. busy reports that
// the database was too busy: j was spooled and there is no time left to
// answer.
func (h *Handler) record(ctx context.Context, db *store.DB, j job, work func(*store.DB) error) (joined, busy bool, err error) {
	// Looked at again, now that the database is held: an event spooled
	// while this hook waited for it arrived first and must go first.
	if n, _, _ := h.Spool.Len(); n > 0 {
		until := time.Now().Add(h.DrainFor)
		release, ok := h.Spool.TryLock()
		if !ok {
			// The process applying the spool looks again before it lets
			// go; if it has just let go, this one takes over.
			err := h.spool(j, "another process is applying the spool")
			if err == nil {
				h.Spool.TakeOver(ctx, db, until, h)
			}
			return true, false, err
		}
		left, err := h.Spool.DrainHeld(ctx, db, release, until, h)
		if err != nil && !errors.Is(err, store.ErrBusy) {
			h.logf("applying spooled events: %v", err)
		}
		if left > 0 {
			return true, errors.Is(err, store.ErrBusy), h.spool(j, fmt.Sprintf("%d spooled events wait before it", left))
		}
	}
	err = h.Spool.Apply(ctx, db, j.ID, j.At, work)
	if spool.NotNow(err) {
		return false, true, h.spoolFor(j, err)
	}
	return false, false, err
}

func (h *Handler) turn(db *store.DB, j job, capture, inject bool) *turn {
	ev := j.Event
	cwd := ev.Cwd
	if cwd == "" {
		cwd = j.Dir
	}
	s := memory.Session{ID: ev.SessionID, Project: j.Project, Agent: ev.Agent, AgentType: ev.AgentType,
		Cwd: privacy.Filter(cwd), ParentID: ev.ParentID, StartedAt: j.At}
	return &turn{h: h, db: db, id: j.ID, ev: ev, s: s, project: j.Project, root: j.Root, at: j.At, capture: capture, inject: inject}
}

func (h *Handler) logf(format string, args ...any) { h.Logf(format, args...) }

// in returns t over db (another transaction).
func (t *turn) in(db *store.DB) *turn {
	c := *t
	c.db = db
	return &c
}

// answerReads reports whether t's reply only reads the database.
func (t *turn) answerReads() bool { return answerReads(t.ev.Kind) }

// answerReads reports whether the reply to an event of kind only reads the
// database (a recall block); other replies consume pending context.
func answerReads(kind Kind) bool {
	return kind == KindSessionStart || kind == KindSystem || kind == KindCompacted
}

// turn is one event being handled, in one transaction.
type turn struct {
	h       *Handler
	db      *store.DB
	id      string // the event's id (spool.NewID)
	ev      Event
	s       memory.Session
	project string
	root    string
	at      time.Time // when the event arrived: the time of everything it records
	capture bool
	inject  bool
	// analysis is what record made of a tool call, for the reply's file
	// context (the files it read and changed do not depend on the session).
	analysis *capture.Result
}

// record does what the event changes in the database; after a pre-compact
// event that may or may not have compacted, it reads whether it did.
func (t *turn) record(ctx context.Context) error {
	if err := t.recordKind(ctx); err != nil {
		return err
	}
	if t.ev.CompactionSettled && t.ev.Transcript != "" {
		return t.settleCompaction(ctx)
	}
	return nil
}

// recordKind does what an event of its kind changes in the database.
func (t *turn) recordKind(ctx context.Context) error {
	switch t.ev.Kind {
	case KindSessionStart:
		s, _, err := t.db.StartSession(ctx, t.s)
		if err != nil {
			return err
		}
		t.s = s
		if t.inject {
			// In the event's transaction, so the start block has them.
			if err := t.h.Memory.Refresh(ctx, t.db, t.project, t.root); err != nil {
				t.h.logf("reading memory files: %v", err)
			}
		}
		if t.ev.CompactionAtPrompt {
			// The start block replaces a compaction block still to come: the
			// model would get the memory twice. A compression still to be
			// looked for is dropped too: what the resumed chat's history
			// holds is no compression of this run.
			if _, err := t.db.TakeSessionMark(ctx, t.s.ID, markKind, markCompacted); err != nil {
				return err
			}
			if _, err := t.db.TakeSessionMarksWithPrefix(ctx, t.s.ID, markKind, markCompressCheck); err != nil {
				return err
			}
		}
	case KindSystem:
		return t.ensure(ctx)
	case KindCompacted:
		if err := t.ensure(ctx); err != nil {
			return err
		}
		if t.ev.CheckpointFirst {
			t.checkpoint(ctx)
		}
	case KindPrompt:
		if err := t.ensure(ctx); err != nil {
			return err
		}
		if text := t.ev.Prompt; !privacy.IsEmpty(text) {
			p, err := t.db.AddPrompt(ctx, t.s.ID, cutText(text), t.at)
			if err != nil {
				return err
			}
			t.s.PromptCount = p.PromptNumber
			// A subagent's prompt is the parent model's words, not the
			// user's: no preference of the user's comes from it.
			if t.s.ParentID != "" {
				return nil
			}
			if o := capture.Preference(text, t.where()); o != nil {
				return t.preference(ctx, *o)
			}
		}
	case KindTool:
		return t.tool(ctx)
	case KindPreCompact:
		if err := t.ensure(ctx); err != nil {
			return err
		}
		t.checkpoint(ctx)
		// The agent takes no context now: its adapter says so when a
		// compaction surely follows, and the next prompt gets the block;
		// when one may follow, the next event looks.
		if t.ev.CompactionAtPrompt {
			if _, err := t.db.PutSessionMark(ctx, t.s.ID, markKind, markCompacted, t.at); err != nil {
				return err
			}
		} else if t.ev.CompactionUnsure {
			return t.noteCompaction(ctx)
		}
	case KindStop:
		for _, c := range codexShellPatches(t.ev.Transcript, t.ev.TurnID) {
			if err := t.toolCall(ctx, c); err != nil {
				return err
			}
		}
		if strings.TrimSpace(t.ev.Message) == "" {
			return nil
		}
		if err := t.ensure(ctx); err != nil {
			return err
		}
		return t.db.SetLastMessage(ctx, t.s.ID, cutText(privacy.Filter(t.ev.Message)), t.at)
	case KindSubagentStop:
		if msg := strings.TrimSpace(t.ev.Message); msg != "" {
			if err := t.ensure(ctx); err != nil {
				return err
			}
			if err := t.db.SetLastMessage(ctx, t.s.ID, cutText(privacy.Filter(msg)), t.at); err != nil {
				return err
			}
		}
		return t.end(ctx)
	case KindSessionEnd:
		return t.end(ctx)
	}
	return nil
}

// answer builds the reply: the context the event calls for.
func (t *turn) answer(ctx context.Context) (Reply, error) {
	switch t.ev.Kind {
	case KindSessionStart, KindSystem:
		return t.block(ctx, false)
	case KindCompacted:
		return t.block(ctx, true)
	case KindPrompt:
		return t.prompt(ctx)
	case KindTool:
		r := t.analysis
		if r == nil { // capture is off: nothing was recorded
			a := capture.Analyze(t.ev.Call, t.where())
			r = &a
		}
		var edited []string
		if r.Observation != nil {
			edited = r.Observation.FilesModified
		}
		var parts []string
		if t.ev.ContextAfterTool {
			b, err := t.compactionBlock(ctx)
			if err != nil {
				return Reply{}, err
			}
			parts = append(parts, b)
		}
		return t.context(ctx, parts, r.FilesRead, edited)
	}
	return Reply{}, nil
}

// answerInWrite is answer in the transaction that records the event: a
// panic while building the reply fails the reply, not the event, which is
// still recorded (a panic left to unwind through the transaction would
// leave it uncommitted, and the event's record in the spool removed).
func (t *turn) answerInWrite(ctx context.Context) (r Reply, err error) {
	defer func() {
		if p := recover(); p != nil {
			r, err = Reply{}, fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return t.answer(ctx)
}

// ensure makes sure the session exists, and loads it. It reads first: most
// events come to a session that exists and need not change it.
func (t *turn) ensure(ctx context.Context) error {
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

// preference stores a preference the user stated for every project in the
// personal tier.
func (t *turn) preference(ctx context.Context, o memory.Observation) error {
	ps, err := t.db.EnsureSession(ctx, memory.PersonalSession(t.at))
	if err != nil {
		return err
	}
	o.SessionID, o.CreatedAt = ps.ID, t.at
	_, err = t.db.AddObservation(ctx, o)
	return err
}

// end marks the session ended (dropping its pending context) and writes its
// summary. A session mem never saw is left alone.
func (t *turn) end(ctx context.Context) error {
	if _, err := t.db.EndSession(ctx, t.s.ID, t.at); err != nil {
		if errors.Is(err, memory.ErrNotFound) {
			return nil
		}
		return err
	}
	if err := t.h.Memory.Summarize(ctx, t.db, t.s.ID, t.at); err != nil {
		return fmt.Errorf("summarizing session %s: %w", t.s.ID, err)
	}
	return nil
}

// checkpoint persists the session so far before the agent compacts its
// context: the summary of the session up to now, which the compaction block
// then carries and SessionEnd later replaces.
func (t *turn) checkpoint(ctx context.Context) {
	if err := t.h.Memory.Summarize(ctx, t.db, t.s.ID, t.at); err != nil {
		t.h.logf("checkpoint of session %s: %v", t.s.ID, err)
	}
}

// block answers with a recall block when injection is on.
func (t *turn) block(ctx context.Context, compact bool) (Reply, error) {
	if !t.inject {
		return Reply{}, nil
	}
	b, err := t.h.Memory.Block(ctx, t.db, t.s, compact)
	if err != nil {
		mode := "start"
		if compact {
			mode = "compact"
		}
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
	b, err := t.compactionBlock(ctx)
	if err != nil {
		return Reply{}, err
	}
	return t.promptContext(ctx, []string{b})
}

// compactionBlock takes the session's mark of a compaction whose block is
// still to come, when the agent takes it at this event, and returns the
// block ("" for none).
func (t *turn) compactionBlock(ctx context.Context) (string, error) {
	if !t.capture || !t.ev.CompactionAtPrompt {
		return "", nil
	}
	took, err := t.db.TakeSessionMark(ctx, t.s.ID, markKind, markCompacted)
	if err != nil || !took {
		return "", err
	}
	return t.h.Memory.Block(ctx, t.db, t.s, true)
}

// promptContext adds what the session is waiting for (prompt-time recall).
func (t *turn) promptContext(ctx context.Context, parts []string) (Reply, error) {
	return t.context(ctx, parts, nil, nil)
}

// context adds what the session is waiting for after the other parts of the
// reply; read and edited are the files of a tool call.
func (t *turn) context(ctx context.Context, parts, read, edited []string) (Reply, error) {
	if t.inject {
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
		c, err := t.h.Memory.TurnContext(ctx, t.db, t.contextTurn(read, edited, room))
		if err != nil {
			return t.reply(parts...), err
		}
		parts = append(parts, c)
	}
	return t.reply(parts...), nil
}

// contextTurn is what the prompt-time pipeline is told of t: a prompt's
// text has passed the privacy filter; read and edited are the files of a
// tool call, relative to the root; room is the characters left under the
// agent's cap (negative: no cap).
func (t *turn) contextTurn(read, edited []string, room int) remember.Turn {
	return remember.Turn{Session: t.s, Prompt: t.ev.Prompt, Tool: t.ev.Kind == KindTool, Read: read, Edited: edited,
		Deliver: t.ev.ContextAfterTool, Root: t.root, Room: room}
}

// where tells capture where the event's tool call happened.
func (t *turn) where() capture.Where {
	w := capture.Where{SessionID: t.s.ID, Root: t.root, Cwd: t.s.Cwd, PromptNumber: t.s.PromptCount, AgentType: t.s.AgentType,
		Agent: t.s.Agent}
	if t.ev.Cwd != "" {
		w.Cwd = t.ev.Cwd
	}
	return w
}

// tool records what the event's tool call read and the observation it
// makes.
func (t *turn) tool(ctx context.Context) error { return t.toolCall(ctx, t.ev.Call) }

// toolCall records what a tool call read and the observation it makes.
func (t *turn) toolCall(ctx context.Context, call capture.Call) error {
	// The session as stored gives the prompt number the capture records.
	if err := t.ensure(ctx); err != nil {
		return err
	}
	w := t.where()
	r := capture.Analyze(call, w)
	t.analysis = &r
	if len(r.FilesRead) > 0 {
		if err := t.db.AddFilesRead(ctx, t.s.ID, r.FilesRead, t.at); err != nil {
			return err
		}
	}
	// The agent fetched entries mem gave it: the feedback on what it
	// injected.
	if err := t.db.UseEntries(ctx, t.project, r.Fetched, t.at); err != nil {
		return err
	}
	o := r.Observation
	var earlier []memory.Observation // what o may replace, newest first
	if r.Check != nil {
		last, err := t.lastCommandOutcome(ctx)
		if err != nil {
			return err
		}
		o = capture.Success(*r.Check, last, w, call.Tool)
		if last != nil {
			earlier = append(earlier, *last)
		}
	}
	if o == nil {
		return nil
	}
	o.CreatedAt = t.at
	o.Citations = cite.Take(t.root, cite.Files(o, r.Written))
	added, err := t.db.AddObservation(ctx, *o)
	if err != nil || added.Duplicate {
		return err
	}
	if o.Type == memory.TypeChange && len(o.FilesModified) == 1 {
		if earlier, err = t.db.ObservationsForFile(ctx, t.s.Project, o.FilesModified[0], 5); err != nil {
			return err
		}
	}
	o.ID = added.ID
	if old := capture.Supersedes(o, earlier); old > 0 {
		if err := t.db.Supersede(ctx, old, added.ID); err != nil {
			if !memory.IsInvalid(err) {
				return err
			}
			t.h.logf("not retiring #%d: %v", old, err)
		}
	}
	return nil
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
