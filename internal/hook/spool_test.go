package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/spool"
	"github.com/memhq/mem/internal/store"
)

// spoolRig is a rig whose hooks open the database as mem hook does (a short
// wait for the lock) and spool beside it.
func spoolRig(t *testing.T) (*rig, string) {
	t.Helper()
	r := newRig(t)
	path := r.db.Path()
	sp := spool.Beside(path)
	r.h.Spool = &sp
	r.h.DrainFor = time.Second
	r.h.Open = func(ctx context.Context) (*store.DB, error) {
		db, err := store.Open(ctx, path, store.Options{BusyTimeoutMillis: 1, Wait: 50 * time.Millisecond})
		if err == nil {
			t.Cleanup(func() { db.Close() })
		}
		return db, err
	}
	return r, path
}

// lock holds the database's write lock from another connection, as another
// process would, until the returned function is called.
func lock(t *testing.T, path string) func() {
	t.Helper()
	other, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := other.SQL().Beginx()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`UPDATE sessions SET cwd = cwd`); err != nil {
		t.Fatal(err)
	}
	return func() { tx.Rollback(); other.Close() }
}

func prompt(session, text string) string {
	b, _ := json.Marshal(map[string]string{"session_id": session, "cwd": "/w", "hook_event_name": "UserPromptSubmit", "prompt": text})
	return string(b)
}

func (r *rig) prompts(t *testing.T, session string) []string {
	t.Helper()
	ps, err := r.db.Prompts(context.Background(), session)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range ps {
		out = append(out, p.Text)
	}
	return out
}

func TestBusyDatabaseSpoolsAndTheNextHookApplies(t *testing.T) {
	r, path := spoolRig(t)
	r.run(t, "claude", prompt("s", "first"))
	release := lock(t, path)
	for _, text := range []string{"second", "third", "fourth"} {
		start := time.Now()
		if got := r.run(t, "claude", prompt("s", text)); got != "" {
			t.Errorf("reply while busy: %s", got)
		}
		if took := time.Since(start); took > time.Second {
			t.Errorf("hook took %v with the database locked", took)
		}
	}
	if n, _, _ := spool.Beside(path).Len(); n != 3 {
		t.Fatalf("%d events spooled, want 3", n)
	}
	release()
	r.run(t, "claude", prompt("s", "fifth"))
	want := []string{"first", "second", "third", "fourth", "fifth"}
	if got := r.prompts(t, "s"); !reflect.DeepEqual(got, want) {
		t.Fatalf("prompts %v, want %v in this order", got, want)
	}
	if n, _, _ := spool.Beside(path).Len(); n != 0 {
		t.Fatalf("%d events still spooled", n)
	}
}

func TestAnEventLeftInTheSpoolAfterItsCommitIsNotAppliedAgain(t *testing.T) {
	r, path := spoolRig(t)
	release := lock(t, path)
	r.run(t, "claude", prompt("s", "one"))
	r.run(t, "claude", prompt("s", "two"))
	release()
	sp := spool.Beside(path)
	entries, _ := sp.List()
	saved := map[string][]byte{}
	for _, e := range entries {
		saved[e.ID], _ = sp.Read(e)
	}
	if _, err := r.h.Spool.Drain(context.Background(), r.db, time.Now().Add(time.Second), r.h); err != nil {
		t.Fatal(err)
	}
	// A process killed between the commit and the removal leaves the file.
	for id, b := range saved {
		if err := os.WriteFile(filepath.Join(sp.Path(), id+".json"), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if left, err := r.h.Spool.Drain(context.Background(), r.db, time.Now().Add(time.Second), r.h); err != nil || left != 0 {
		t.Fatalf("second drain: %d left, %v", left, err)
	}
	if got := r.prompts(t, "s"); !reflect.DeepEqual(got, []string{"one", "two"}) {
		t.Fatalf("prompts %v, want one, two once each", got)
	}
	if n, _, _ := sp.Len(); n != 0 {
		t.Fatalf("%d files left in the spool", n)
	}
}

func TestAnUnreadableRecordIsSetAside(t *testing.T) {
	r, path := spoolRig(t)
	sp := spool.Beside(path)
	if err := sp.Put(spool.NewID(time.Now()), []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	r.run(t, "claude", prompt("s", "after"))
	if waiting, failed, _ := sp.Len(); waiting != 0 || failed != 1 {
		t.Fatalf("%d waiting, %d set aside; want 0, 1", waiting, failed)
	}
	if got := r.prompts(t, "s"); !reflect.DeepEqual(got, []string{"after"}) {
		t.Fatalf("prompts %v", got)
	}
}

// A record that is not JSON, or of another version, is unreadable, and
// the reason stays in the error's chain.
func TestApplySpooledNamesWhyARecordIsUnreadable(t *testing.T) {
	r, _ := spoolRig(t)
	var syntax *json.SyntaxError
	err := r.h.ApplySpooled(context.Background(), r.db, "x", []byte("{not json"))
	if !errors.Is(err, spool.ErrUnreadable) || !errors.As(err, &syntax) {
		t.Errorf("not JSON: %v; want ErrUnreadable and the JSON error wrapped", err)
	}
	err = r.h.ApplySpooled(context.Background(), r.db, "x", []byte(`{"v":99}`))
	if !errors.Is(err, spool.ErrUnreadable) || !strings.Contains(err.Error(), "version 99") {
		t.Errorf("another version: %v", err)
	}
}

// TestSpooledEventIsExact: what is spooled decodes to the same event (the
// tool's JSON compacted, the same value), for every Claude Code sample.
func TestSpooledEventIsExact(t *testing.T) {
	files, _ := filepath.Glob("../../cmd/mem-bench/testdata/hooks/claude-code/*.json")
	if len(files) == 0 {
		t.Fatal("no sample events")
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := adapter("claude").Decode(raw, func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range []*json.RawMessage{&ev.Call.Input, &ev.Call.Response} {
			if len(*raw) > 0 {
				var b bytes.Buffer
				if err := json.Compact(&b, *raw); err != nil {
					t.Fatal(err)
				}
				*raw = b.Bytes()
			}
		}
		in := job{V: jobVersion, At: time.Unix(1_700_000_000, 123456789).UTC(), Dir: "/w", Project: "p", Root: "/w", Event: ev}
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		var out job
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(in, out) {
			t.Errorf("%s: spooled %+v\ncame back %+v", filepath.Base(f), in, out)
		}
	}
}

func TestAHookStarvedOfTheDatabaseSpoolsBeforeItsDeadline(t *testing.T) {
	r, path := spoolRig(t)
	open := r.h.Open
	late := make(chan struct{})
	t.Cleanup(func() { <-late }) // before the database's folder goes
	r.h.Open = func(ctx context.Context) (*store.DB, error) {
		defer close(late)
		time.Sleep(800 * time.Millisecond) // a machine too loaded to get on with it
		return open(ctx)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	ev, _ := adapter("claude").Decode([]byte(prompt("s", "late")), func(string) string { return "" })
	if _, err := r.h.Handle(ctx, ev); err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatal("Handle returned after its deadline")
	}
	if n, _, _ := spool.Beside(path).Len(); n != 1 {
		t.Fatalf("%d events spooled, want 1", n)
	}
	if !strings.Contains(r.log.String(), "spooled") {
		t.Errorf("log: %s", r.log.String())
	}
}

// An event of the spool that fails part way keeps none of its changes: it is
// set aside whole, while the events around it are applied.
func TestASpooledEventThatFailsKeepsNothing(t *testing.T) {
	r, path := spoolRig(t)
	r.run(t, "claude", `{"session_id":"s","cwd":"/w","hook_event_name":"SessionStart","source":"startup"}`)
	release := lock(t, path)
	r.run(t, "claude", prompt("s", "one"))
	r.run(t, "claude", `{"session_id":"s","cwd":"/w","hook_event_name":"SessionEnd","reason":"exit"}`)
	r.run(t, "claude", prompt("s", "two"))
	release()
	r.mem.summarize = func(context.Context, *store.DB, string, time.Time) error { return errors.New("no summary") }
	if left, err := r.h.Spool.Drain(context.Background(), r.db, time.Now().Add(time.Second), r.h); err != nil || left != 0 {
		t.Fatalf("drain: %d left, %v", left, err)
	}
	if got := r.prompts(t, "s"); !reflect.DeepEqual(got, []string{"one", "two"}) {
		t.Fatalf("prompts %v, want one, two", got)
	}
	s, err := r.db.Session(context.Background(), "s")
	if err != nil || s.Status == memory.StatusEnded {
		t.Fatalf("the failed SessionEnd ended the session: status %q, err %v", s.Status, err)
	}
	if _, failed, _ := spool.Beside(path).Len(); failed != 1 {
		t.Fatalf("%d events set aside, want 1", failed)
	}
}
