package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/store"
)

// The session-start block checks the files its observations cite; what the
// check learns (a file touched with the same content: its fingerprint moves
// to the new time) is kept in the event's one write transaction, so the
// next block only stats the file. A SessionStart that records nothing
// (capture off) writes nothing for it.
func TestSessionStartKeepsWhatItsCitationCheckLearnt(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	cited := filepath.Join(proj, "a.go")
	if err := os.WriteFile(cited, []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := dirEnv(dir)
	call := countedCalls(t, env, func() (string, error) { return proj, nil })
	call("", "observe", "--session", "s0", "--type", "decision", "--title", "wombat cache lives in a.go", "--file-modified", "a.go")
	// citedAt is the time the citation of a.go holds.
	citedAt := func() int64 {
		t.Helper()
		db, err := store.Open(context.Background(), env["MEM_DB"], store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		cs, err := db.Citations(context.Background(), []int64{1}, nil)
		if err != nil || len(cs) != 1 {
			t.Fatalf("citations of #1: %+v, %v", cs, err)
		}
		return cs[0].ModTime
	}
	before := citedAt()
	touch := func(at time.Time) int64 {
		t.Helper()
		if err := os.Chtimes(cited, at, at); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(cited)
		if err != nil {
			t.Fatal(err)
		}
		return fi.ModTime().UnixNano()
	}
	start := func(session string) (txCount, string) {
		t.Helper()
		ev, _ := json.Marshal(map[string]string{"session_id": session, "cwd": proj, "hook_event_name": "SessionStart", "source": "startup"})
		return call(string(ev), "hook", "claude")
	}

	// Capture off: the block is read, nothing written, nothing kept.
	if err := os.WriteFile(filepath.Join(proj, ".mem"), []byte("capture = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	moved := touch(time.Now().Add(time.Minute))
	n, out := start("s1")
	if !strings.Contains(out, "wombat cache") {
		t.Fatalf("the start block does not show the cited observation: %s", out)
	}
	if n.writes() != 0 || n.reads() > 1 {
		t.Errorf("SessionStart with capture off: %s; want no write and at most 1 read", n)
	}
	if got := citedAt(); got != before {
		t.Errorf("with capture off the citation moved to %d (cited at %d)", got, before)
	}

	// Capture on: what the check learnt goes in the event's one write.
	if err := os.Remove(filepath.Join(proj, ".mem")); err != nil {
		t.Fatal(err)
	}
	n, out = start("s2")
	if !strings.Contains(out, "wombat cache") {
		t.Fatalf("the start block does not show the cited observation: %s", out)
	}
	if n.writes() != 1 || n.reads() > 1 || n.savepoints > 0 {
		t.Errorf("SessionStart: %s; want 1 write, at most 1 read, no savepoint", n)
	}
	if got := citedAt(); got != moved {
		t.Errorf("the citation holds %d after the block, want the touched file's time %d (cited at %d): what the check learnt was not kept",
			got, moved, before)
	}
}
