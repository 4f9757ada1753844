package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
)

func openTest(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "sub", "mem.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func startTest(t *testing.T, db *DB, id, project string) memory.Session {
	t.Helper()
	s, _, err := db.StartSession(context.Background(), memory.Session{ID: id, Project: project, Agent: "test",
		StartedAt: time.UnixMilli(1_700_000_000_000)})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func ftsCount(t *testing.T, db *DB, match string) int {
	t.Helper()
	var n int
	if err := db.x.Get(&n, `SELECT count(*) FROM observations_fts WHERE observations_fts MATCH ?`, match); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestObservationDedupAndFTS(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	startTest(t, db, "s1", "p1")
	o := memory.Observation{SessionID: "s1", Type: memory.TypeDecision, Title: "Use parseDSN for config",
		Narrative: "We chose exponential backoff.", FilesModified: []string{"internal/store/db.go"}}
	a, err := db.AddObservation(ctx, o)
	if err != nil || a.Duplicate || a.ID == 0 {
		t.Fatalf("first add: %+v %v", a, err)
	}
	o.Title = "  Use parseDSN for config " // normalises to the same content
	b, err := db.AddObservation(ctx, o)
	if err != nil || !b.Duplicate || b.ID != a.ID {
		t.Fatalf("second add: %+v %v, want duplicate of %d", b, err, a.ID)
	}
	for _, m := range []string{"backoff", "parse", "parsedsn", `"db go"`} {
		if n := ftsCount(t, db, m); n != 1 {
			t.Errorf("MATCH %s: %d rows, want 1", m, n)
		}
	}
	files, err := db.ObservationsForFile(ctx, "p1", "internal/store/db.go", 5)
	if err != nil || len(files) != 1 {
		t.Fatalf("ObservationsForFile: %v %v", files, err)
	}
	if _, err := db.DeleteRecords(ctx, []int64{a.ID}, nil); err != nil {
		t.Fatal(err)
	}
	if n := ftsCount(t, db, "backoff"); n != 0 {
		t.Errorf("after delete: %d fts rows", n)
	}
	for _, c := range db.Doctor(ctx) {
		if !c.OK {
			t.Errorf("doctor %s: %s", c.Name, c.Detail)
		}
	}
}

func TestObservationNeedsSession(t *testing.T) {
	db := openTest(t)
	_, err := db.AddObservation(context.Background(), memory.Observation{SessionID: "nope", Type: "note", Title: "x"})
	if !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("got %v, want ErrNotFound", err)
	}
}

func TestOpenRefusesBadFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.db")
	content := []byte("this is not a database, just some text that is long enough")
	if err := os.WriteFile(junk, content, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
		want error
	}{
		{"directory", dir, ErrIsDirectory},
		{"not sqlite", junk, ErrNotDatabase},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Open(ctx, tt.path, Options{}); !errors.Is(err, tt.want) {
				t.Fatalf("Open: %v, want %v", err, tt.want)
			}
		})
	}
	if got, _ := os.ReadFile(junk); string(got) != string(content) {
		t.Error("junk file was modified")
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mem.db")
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.x.Exec(`PRAGMA user_version = 999`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Open(ctx, path, Options{}); !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("Open: %v, want ErrNewerSchema", err)
	}
}

func TestForgetSessionRemovesEverything(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	startTest(t, db, "s1", "p1")
	startTest(t, db, "s2", "p1")
	for _, s := range []string{"s1", "s2"} {
		if _, err := db.AddObservation(ctx, memory.Observation{SessionID: s, Type: "note", Title: "refund retries " + s}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.AddPrompt(ctx, s, "fix the refunds", time.Time{}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.PutSummary(ctx, memory.Summary{SessionID: s, Text: "refunds fixed"}); err != nil {
			t.Fatal(err)
		}
	}
	d, err := db.DeleteSession(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if d != (Deleted{Sessions: 1, Observations: 1, Summaries: 1, Prompts: 1}) {
		t.Errorf("deleted %+v", d)
	}
	if n := ftsCount(t, db, "refund"); n != 1 {
		t.Errorf("fts rows left: %d, want 1", n)
	}
	d, err = db.DeleteProject(ctx, "p1")
	if err != nil || d.Sessions != 1 {
		t.Fatalf("DeleteProject: %+v %v", d, err)
	}
	for _, c := range db.Doctor(ctx) {
		if !c.OK {
			t.Errorf("doctor %s: %s", c.Name, c.Detail)
		}
	}
}

// More ids than SQLite has bound variables still get a clear answer.
func TestObservationsManyIDs(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	startTest(t, db, "s1", "p1")
	a, err := db.AddObservation(ctx, memory.Observation{SessionID: "s1", Type: memory.TypeNote, Title: "only one"})
	if err != nil {
		t.Fatal(err)
	}
	ids := []int64{a.ID}
	for i := int64(1000); i < 41000; i++ {
		ids = append(ids, i)
	}
	if _, err := db.Observations(ctx, ids); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("got %v, want ErrNotFound", err)
	}
	got, err := db.Observations(ctx, []int64{a.ID, a.ID})
	if err != nil || len(got) != 2 || got[1].Title != "only one" {
		t.Fatalf("repeated id: %v %v", got, err)
	}
}

func TestFilesReadAreBounded(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	startTest(t, db, "s1", "p1")
	var paths []string
	for i := 0; i < MaxFilesRead+100; i++ {
		paths = append(paths, fmt.Sprintf("f%04d.go", i))
	}
	if err := db.AddFilesRead(ctx, "s1", paths, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := db.AddFilesRead(ctx, "s1", paths[len(paths)-3:], time.Time{}); err != nil {
		t.Fatal(err)
	}
	s, err := db.Session(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.FilesRead) != MaxFilesRead || s.FilesRead[MaxFilesRead-1] != paths[len(paths)-1] {
		t.Fatalf("%d files kept, last %q", len(s.FilesRead), s.FilesRead[len(s.FilesRead)-1])
	}
	if err := db.AddFilesRead(ctx, "nope", paths[:1], time.Time{}); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
}
