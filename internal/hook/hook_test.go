package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/agent"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/project"
	"github.com/memhq/mem/internal/remember"
	"github.com/memhq/mem/internal/spool"
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/switches"
)

// rig is a handler on a real temporary database with fake features.
type rig struct {
	db      *store.DB
	h       *Handler
	mem     *fakeMemory
	modes   []string
	summary []string
	log     bytes.Buffer
}

// fakeMemory answers as its functions say.
type fakeMemory struct {
	block     func(ctx context.Context, db *store.DB, s memory.Session, mode string) (string, error)
	summarize func(ctx context.Context, db *store.DB, id string, at time.Time) error
	context   func(ctx context.Context, db *store.DB, t remember.Turn) (string, error)
}

func (m *fakeMemory) Block(ctx context.Context, db *store.DB, s memory.Session, compact bool) (string, error) {
	mode := "start"
	if compact {
		mode = "compact"
	}
	return m.block(ctx, db, s, mode)
}

func (m *fakeMemory) Summarize(ctx context.Context, db *store.DB, id string, at time.Time) error {
	return m.summarize(ctx, db, id, at)
}

func (m *fakeMemory) TurnContext(ctx context.Context, db *store.DB, t remember.Turn) (string, error) {
	if m.context == nil {
		return "", nil
	}
	return m.context(ctx, db, t)
}

func (m *fakeMemory) Refresh(context.Context, *store.DB, string, string) error { return nil }

func newRig(t *testing.T) *rig {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "mem.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	r := &rig{db: db}
	r.mem = &fakeMemory{
		block: func(_ context.Context, _ *store.DB, s memory.Session, mode string) (string, error) {
			r.modes = append(r.modes, mode)
			return "<memory_context mode=\"" + mode + "\" session=\"" + s.ID + "\"/>", nil
		},
		summarize: func(_ context.Context, _ *store.DB, id string, _ time.Time) error {
			r.summary = append(r.summary, id)
			return nil
		},
	}
	sp := spool.Beside(db.Path())
	h, err := New(Deps{
		Open:     func(context.Context) (*store.DB, error) { return db, nil },
		Project:  func(dir string) (project.Identity, error) { return project.Identity{Key: "p", Root: dir}, nil },
		Switches: func(string) switches.Decision { return switches.Decision{Inject: true, Capture: true} },
		Memory:   r.mem,
		Getwd:    os.Getwd,
		Now:      time.Now,
		Logf:     func(f string, a ...any) { r.log.WriteString(f + "\n") },
		Spool:    &sp,
		MaxChars: 10000,
	})
	if err != nil {
		t.Fatal(err)
	}
	r.h = h
	return r
}

// adapter is the registry's adapter for the agent of that name.
func adapter(name string) Adapter {
	a, ok := agent.Lookup(name)
	if !ok {
		panic("no agent " + name)
	}
	return a.Adapter
}

func (r *rig) run(t *testing.T, agent, event string) string {
	t.Helper()
	var out bytes.Buffer
	var errw bytes.Buffer
	run := &Runner{Adapter: adapter(agent), Handler: r.h, Deadline: 2 * time.Second,
		Getenv: func(string) string { return "" }, Log: &Logger{Err: &errw}}
	if !run.Run(context.Background(), strings.NewReader(event), &out) {
		t.Fatalf("hook did not finish: %s", errw.String())
	}
	if errw.Len() > 0 {
		t.Logf("log: %s", errw.String())
	}
	if out.Len() > 0 && !json.Valid(out.Bytes()) {
		t.Fatalf("invalid reply %q", out.String())
	}
	return out.String()
}

func TestRecallBlocksPerAgent(t *testing.T) {
	r := newRig(t)
	got := r.run(t, "claude", `{"session_id":"s1","cwd":"/w","hook_event_name":"SessionStart","source":"startup"}`)
	want := `{"hookSpecificOutput":{"additionalContext":"<memory_context mode=\"start\" session=\"s1\"/>","hookEventName":"SessionStart"}}` + "\n"
	if got != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
	if got := r.run(t, "claude", `{"session_id":"s1","cwd":"/w","hook_event_name":"SessionStart","source":"compact"}`); !strings.Contains(got, `mode=\"compact\"`) {
		t.Fatalf("compact start: %s", got)
	}
	if got := r.run(t, "opencode", `{"event":"compacting","sessionID":"o1","directory":"/w"}`); got != `{"context":"<memory_context mode=\"compact\" session=\"o1\"/>"}`+"\n" {
		t.Fatalf("opencode compacting: %s", got)
	}
	if len(r.summary) != 1 || r.summary[0] != "o1" {
		t.Fatalf("opencode compacting should checkpoint first: %v", r.summary)
	}
	if got := r.run(t, "codex", `{"session_id":"c1","cwd":"/w","hook_event_name":"SessionStart","source":"startup"}`); !strings.Contains(got, "additionalContext") {
		t.Fatalf("codex start: %s", got)
	}
}

// Gemini fires PreCompress "auto" before it checks its threshold, on every
// turn, whether it then compresses or not (recorded: 27 in one run, none
// compressed); "manual" is /compress, which always compresses.
func TestGeminiCompactionBlockComesWithTheNextPrompt(t *testing.T) {
	for _, tc := range []struct {
		trigger string
		block   bool
	}{{"manual", true}, {"auto", false}, {"", false}} {
		t.Run("trigger "+tc.trigger, func(t *testing.T) {
			r := newRig(t)
			r.run(t, "gemini", `{"session_id":"g1","cwd":"/w","hook_event_name":"SessionStart","source":"startup"}`)
			if got := r.run(t, "gemini", `{"session_id":"g1","cwd":"/w","hook_event_name":"PreCompress","trigger":"`+tc.trigger+`"}`); got != "" {
				t.Fatalf("PreCompress takes no context, got %s", got)
			}
			if len(r.summary) != 1 {
				t.Fatalf("PreCompress should checkpoint: %v", r.summary)
			}
			got := r.run(t, "gemini", `{"session_id":"g1","cwd":"/w","hook_event_name":"BeforeAgent","prompt":"go on"}`)
			if has := strings.Contains(got, `mode=\"compact\"`); has != tc.block {
				t.Fatalf("BeforeAgent after PreCompress %q: compaction block %v, want %v: %s", tc.trigger, has, tc.block, got)
			}
			if got := r.run(t, "gemini", `{"session_id":"g1","cwd":"/w","hook_event_name":"BeforeAgent","prompt":"and again"}`); got != "" {
				t.Fatalf("the compaction block comes once, got %s", got)
			}
		})
	}
}

func TestSessionEndEndsAndSummarizes(t *testing.T) {
	r := newRig(t)
	r.run(t, "claude", `{"session_id":"s1","cwd":"/w","hook_event_name":"SessionStart","source":"startup"}`)
	r.run(t, "claude", `{"session_id":"s1","cwd":"/w","hook_event_name":"SessionEnd","reason":"exit"}`)
	s, err := r.db.Session(context.Background(), "s1")
	if err != nil || s.Status != memory.StatusEnded {
		t.Fatalf("status %q, err %v", s.Status, err)
	}
	if strings.Join(r.summary, ",") != "s1" {
		t.Fatalf("summarized %v", r.summary)
	}
	// A session mem never saw is not created just to be ended.
	r.run(t, "claude", `{"session_id":"ghost","cwd":"/w","hook_event_name":"SessionEnd"}`)
	if _, err := r.db.Session(context.Background(), "ghost"); err == nil {
		t.Fatal("ghost session created")
	}
}

func TestOverlongContextIsLeftOut(t *testing.T) {
	r := newRig(t)
	r.h.MaxChars = 20
	if got := r.run(t, "claude", `{"session_id":"s1","cwd":"/w","hook_event_name":"SessionStart","source":"startup"}`); got != "" {
		t.Fatalf("a block over the cap must not be sent, got %s", got)
	}
	if !strings.Contains(r.log.String(), "over the cap") {
		t.Fatalf("log: %s", r.log.String())
	}
}

func TestPromptContextHook(t *testing.T) {
	r := newRig(t)
	r.mem.context = func(_ context.Context, _ *store.DB, c remember.Turn) (string, error) {
		return "pending for " + c.Session.ID + " at prompt " + string(rune('0'+c.Session.PromptCount)), nil
	}
	got := r.run(t, "claude", `{"session_id":"s1","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"hi"}`)
	if !strings.Contains(got, `"additionalContext":"pending for s1 at prompt 1"`) {
		t.Fatalf("got %s", got)
	}
}

func TestDeadlineGivesNoContext(t *testing.T) {
	r := newRig(t)
	r.mem.block = func(ctx context.Context, _ *store.DB, _ memory.Session, _ string) (string, error) {
		<-ctx.Done() // a recall that never finishes in time
		time.Sleep(10 * time.Millisecond)
		return "late", nil
	}
	var out, errw bytes.Buffer
	run := &Runner{Adapter: adapter("claude"), Handler: r.h, Deadline: 100 * time.Millisecond,
		Getenv: func(string) string { return "" }, Log: &Logger{Err: &errw}}
	start := time.Now()
	run.Run(context.Background(), strings.NewReader(`{"session_id":"s1","cwd":"/w","hook_event_name":"SessionStart"}`), &out)
	if took := time.Since(start); took > time.Second {
		t.Fatalf("took %s", took)
	}
	if out.Len() != 0 || !strings.Contains(errw.String()+r.log.String(), "deadline") {
		t.Fatalf("out %q, log %q", out.String(), errw.String())
	}
}

func TestPanicIsRecovered(t *testing.T) {
	r := newRig(t)
	r.mem.block = func(context.Context, *store.DB, memory.Session, string) (string, error) { panic("boom") }
	var out, errw bytes.Buffer
	run := &Runner{Adapter: adapter("claude"), Handler: r.h, Deadline: time.Second,
		Getenv: func(string) string { return "" }, Log: &Logger{Err: &errw}}
	run.Run(context.Background(), strings.NewReader(`{"session_id":"s1","cwd":"/w","hook_event_name":"SessionStart"}`), &out)
	if out.Len() != 0 || !strings.Contains(errw.String(), "panic: boom") {
		t.Fatalf("out %q, log %q", out.String(), errw.String())
	}
}

// A reply built in the event's write transaction that panics fails the
// reply, not the event: the session start and the prompt are recorded,
// and the next event finds the database free.
func TestAPanickingReplyKeepsItsEvent(t *testing.T) {
	r := newRig(t)
	r.mem.block = func(context.Context, *store.DB, memory.Session, string) (string, error) { panic("block boom") }
	r.mem.context = func(context.Context, *store.DB, remember.Turn) (string, error) { panic("context boom") }
	ctx := context.Background()
	for _, ev := range []string{
		`{"session_id":"s1","cwd":"/w","hook_event_name":"SessionStart","source":"startup"}`,
		`{"session_id":"s1","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"the wombat prompt"}`,
	} {
		var out, errw bytes.Buffer
		run := &Runner{Adapter: adapter("claude"), Handler: r.h, Deadline: 2 * time.Second,
			Getenv: func(string) string { return "" }, Log: &Logger{Err: &errw}}
		run.Run(ctx, strings.NewReader(ev), &out)
		if out.Len() != 0 || !strings.Contains(errw.String(), "boom") {
			t.Fatalf("%s: out %q, log %q", ev, out.String(), errw.String())
		}
	}
	if _, err := r.db.Session(ctx, "s1"); err != nil {
		t.Fatalf("the session start whose block panicked was not recorded: %v", err)
	}
	if ps, err := r.db.Prompts(ctx, "s1"); err != nil || len(ps) != 1 {
		t.Fatalf("prompts of s1: %+v, %v; want the one whose context panicked", ps, err)
	}
	if n, _, err := spool.Beside(r.db.Path()).Len(); err != nil || n != 0 {
		t.Errorf("spool: %d waiting (%v), want 0: both events are in the database", n, err)
	}
}

func TestCaptureOffStoresNothingButInjects(t *testing.T) {
	r := newRig(t)
	r.h.Switches = func(string) switches.Decision { return switches.Decision{Inject: true} }
	got := r.run(t, "claude", `{"session_id":"s1","cwd":"/w","hook_event_name":"SessionStart"}`)
	if !strings.Contains(got, "memory_context") {
		t.Fatalf("got %s", got)
	}
	r.run(t, "claude", `{"session_id":"s1","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"x"}`)
	if _, err := r.db.Session(context.Background(), "s1"); err == nil {
		t.Fatal("session stored with capture off")
	}
}

// Prompt-time context is consumed as it is built, so it is offered only the
// room the compaction block leaves under the cap.
func TestPromptContextGetsTheRoomLeft(t *testing.T) {
	r := newRig(t)
	r.h.MaxChars = 100
	r.mem.block = func(context.Context, *store.DB, memory.Session, string) (string, error) {
		return "compaction block", nil // 16 characters
	}
	var rooms []int
	r.mem.context = func(_ context.Context, _ *store.DB, c remember.Turn) (string, error) {
		rooms = append(rooms, c.Room)
		return "ctx", nil
	}
	r.run(t, "gemini", `{"session_id":"g1","cwd":"/w","hook_event_name":"PreCompress","trigger":"manual"}`)
	got := r.run(t, "gemini", `{"session_id":"g1","cwd":"/w","hook_event_name":"BeforeAgent","prompt":"go on"}`)
	if !strings.Contains(got, "compaction block") || !strings.Contains(got, "ctx") {
		t.Fatalf("reply %s", got)
	}
	if len(rooms) == 0 || rooms[len(rooms)-1] != 100-18 {
		t.Fatalf("rooms offered %v, want the last to be %d", rooms, 100-18)
	}
}

// A Gemini session resumed after a /compress gets the start block, and not
// the compaction block on top of it at its next prompt.
func TestGeminiResumeDropsPendingCompactionBlock(t *testing.T) {
	r := newRig(t)
	r.run(t, "gemini", `{"session_id":"g1","cwd":"/w","hook_event_name":"SessionStart","source":"startup"}`)
	r.run(t, "gemini", `{"session_id":"g1","cwd":"/w","hook_event_name":"PreCompress","trigger":"manual"}`)
	if got := r.run(t, "gemini", `{"session_id":"g1","cwd":"/w","hook_event_name":"SessionStart","source":"resume"}`); !strings.Contains(got, "additionalContext") {
		t.Fatalf("resume: want the start block, got %s", got)
	}
	if got := r.run(t, "gemini", `{"session_id":"g1","cwd":"/w","hook_event_name":"BeforeAgent","prompt":"go on"}`); strings.Contains(got, `mode=\"compact\"`) {
		t.Fatalf("the compaction block came on top of the start block: %s", got)
	}
}

// dumpTable returns every value of every row of table as text.
func dumpTable(t *testing.T, db *store.DB, table string) string {
	t.Helper()
	rows, err := db.SQL().Query(`SELECT * FROM ` + table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var b strings.Builder
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			fmt.Fprintf(&b, "%v\t", v)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// What an event says of its session (its id, its parent's, the agent type,
// the working folder) is stored filtered; a filtered id still names one
// session, event after event.
func TestSessionFieldsAreFiltered(t *testing.T) {
	const tok = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
	r := newRig(t)
	// The project lies elsewhere: the working folder is stored as it is sent.
	r.h.Project = func(string) (project.Identity, error) { return project.Identity{Key: "p", Root: "/w"}, nil }
	ev := func(name, extra string) string {
		return `{"session_id":"s-` + tok + `","cwd":"/tmp/` + tok + `/x","agent_type":"rev<private>hidden-type</private>",` +
			`"hook_event_name":"` + name + `"` + extra + `}`
	}
	r.run(t, "claude", ev("SessionStart", `,"source":"startup"`))
	r.run(t, "claude", ev("UserPromptSubmit", `,"prompt":"first"`))
	r.run(t, "claude", ev("UserPromptSubmit", `,"prompt":"second"`))
	r.run(t, "claude", ev("PostToolUse", `,"agent_id":"a1","tool_name":"Edit","tool_input":{"file_path":"f.go","old_string":"a := 1","new_string":"a := 2"}`))
	var all string
	for _, table := range []string{"sessions", "prompts", "observations", "session_marks"} {
		all += dumpTable(t, r.db, table)
	}
	for _, leak := range []string{"16C7e", "hidden-type"} {
		if strings.Contains(all, leak) {
			t.Errorf("%q was stored:\n%s", leak, all)
		}
	}
	list, err := r.db.ListSessions(context.Background(), store.SessionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var counts []int
	for _, s := range list {
		if s.ParentID == "" {
			counts = append(counts, s.PromptCount)
		}
	}
	if len(counts) != 1 || counts[0] != 2 {
		t.Errorf("want one top session with 2 prompts, got prompt counts %v:\n%s", counts, all)
	}
}

// New refuses a handler that lacks a dependency, naming it, rather than
// skipping the step the dependency does.
func TestNewRefusesAMissingDependency(t *testing.T) {
	full := newRig(t).h.Deps
	for _, tc := range []struct {
		name string
		drop func(*Deps)
	}{
		{"Open", func(d *Deps) { d.Open = nil }},
		{"Project", func(d *Deps) { d.Project = nil }},
		{"Switches", func(d *Deps) { d.Switches = nil }},
		{"Memory", func(d *Deps) { d.Memory = nil }},
		{"Getwd", func(d *Deps) { d.Getwd = nil }},
		{"Now", func(d *Deps) { d.Now = nil }},
		{"Logf", func(d *Deps) { d.Logf = nil }},
		{"Spool", func(d *Deps) { d.Spool = nil }},
	} {
		d := full
		tc.drop(&d)
		if _, err := New(d); err == nil || !strings.Contains(err.Error(), "no "+tc.name) {
			t.Errorf("without %s: %v, want an error naming it", tc.name, err)
		}
	}
	if _, err := New(full); err != nil {
		t.Fatal(err)
	}
	if _, err := (&Handler{Deps: full}).Handle(context.Background(), Event{Kind: KindPrompt, SessionID: "s"}); err == nil {
		t.Error("a handler not built by New handled an event")
	}
}

// After an automatic PreCompress, the next event reads the transcript for
// a compression; a session resumed in between gets the start block, and a
// compression its resumed history holds gives no compaction block on top.
func TestGeminiAutoCompressionSeenOnceNotAcrossAResume(t *testing.T) {
	full, err := os.ReadFile("testdata/gemini-0.61.0-compressed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat("testdata/gemini-0.61.0-before.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, resume := range []bool{false, true} {
		t.Run(fmt.Sprint("resumed ", resume), func(t *testing.T) {
			r := newRig(t)
			tr := filepath.Join(t.TempDir(), "session-1.jsonl")
			if err := os.WriteFile(tr, full[:fi.Size()], 0o600); err != nil {
				t.Fatal(err)
			}
			ev := func(name, extra string) string {
				return `{"session_id":"g1","cwd":"/w","transcript_path":"` + tr + `","hook_event_name":"` + name + `"` + extra + `}`
			}
			r.run(t, "gemini", ev("SessionStart", `,"source":"startup"`))
			r.run(t, "gemini", ev("PreCompress", `,"trigger":"auto"`))
			if resume {
				if got := r.run(t, "gemini", ev("SessionStart", `,"source":"resume"`)); !strings.Contains(got, "additionalContext") {
					t.Fatalf("resume: want the start block, got %s", got)
				}
			}
			if err := os.WriteFile(tr, full, 0o600); err != nil {
				t.Fatal(err)
			}
			got := r.run(t, "gemini", ev("BeforeAgent", `,"prompt":"go on"`))
			if has := strings.Contains(got, `mode=\"compact\"`); has == resume {
				t.Fatalf("compaction block %v after a compression seen in the transcript (resumed %v): %s", has, resume, got)
			}
		})
	}
}
