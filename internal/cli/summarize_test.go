package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/store"
)

// runMem runs the command line in-process against the database at db.
func runMem(t *testing.T, db string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	app := NewApp(strings.NewReader(""), &out, &errb)
	dir := filepath.Dir(db)
	env := map[string]string{"MEM_DB": db, "MEM_PROJECT": "test/project", "HOME": dir, "MEM_CONFIG": ""}
	app.Getenv = func(k string) string { return env[k] }
	code := Main(context.Background(), app, args)
	return code, out.String(), errb.String()
}

// A database locked by a long writer: the summary waits for the busy
// timeout, then fails with exit 1 and writes nothing.
func TestSummarizeLockedDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mem.db")
	for _, args := range [][]string{
		{"session", "start", "--session", "s1"},
		{"observe", "--session", "s1", "--type", "feature", "--title", "Added CSV export"},
		{"session", "end", "--session", "s1"},
	} {
		if code, _, stderr := runMem(t, path, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	ctx := context.Background()
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	writer, err := db.SQL().BeginTx(ctx, nil) // BEGIN IMMEDIATE: holds the write lock
	if err != nil {
		t.Fatal(err)
	}
	if _, err := writer.Exec(`UPDATE sessions SET cwd = 'held' WHERE id = 's1'`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	code, stdout, stderr := runMem(t, path, "summarize", "--session", "s1")
	waited := time.Since(start)
	writer.Rollback()
	if code != ExitFailure || !strings.Contains(stderr, "database is locked") || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q, stdout %q; want exit 1 and one line saying the database is locked", code, stderr, stdout)
	}
	if waited < time.Duration(store.BusyTimeoutMillis)*time.Millisecond*9/10 {
		t.Errorf("gave up after %v, before the busy timeout", waited)
	}
	if code, _, _ := runMem(t, path, "get", "S1"); code != ExitUsage {
		t.Fatalf("a summary was written while the database was locked (get S1: exit %d)", code)
	}
	if code, stdout, stderr := runMem(t, path, "summarize", "--session", "s1"); code != 0 {
		t.Fatalf("after the lock: exit %d: %s%s", code, stdout, stderr)
	}
}
