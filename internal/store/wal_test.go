package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestWALKeptEmpty: after the last connection closes, the WAL file stays
// (so the next short process need not create it) but holds nothing: the
// closing checkpoint moved everything into the database file.
func TestWALKeptEmpty(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mem.db")
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	startTest(t, db, "s1", "p1")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path + "-wal")
	if err != nil {
		t.Fatalf("WAL file after close: %v", err)
	}
	if fi.Size() != 0 {
		t.Errorf("WAL file after close: %d bytes, want 0", fi.Size())
	}
	db, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Session(ctx, "s1"); err != nil {
		t.Errorf("session after reopening: %v", err)
	}
}
