//go:build unix

package store

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// withUmask runs fn with the process umask set to mask: the files a test
// checks must not depend on the umask of whoever runs it.
func withUmask(t *testing.T, mask int, fn func()) {
	t.Helper()
	old := syscall.Umask(mask)
	defer syscall.Umask(old)
	fn()
}

func modeOf(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// A new database is private to its user whatever the umask: the folders
// Open creates 0700, the file, its -wal and -shm (which SQLite creates
// with the database file's mode) and the migration lock 0600.
func TestNewDatabaseIsPrivate(t *testing.T) {
	base := t.TempDir()
	path := filepath.Join(base, "data", "mem", "mem.db")
	withUmask(t, 0, func() {
		db, err := Open(context.Background(), path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		db.SQL().MustExec(`INSERT INTO leases (name, holder, expires_at) VALUES ('x', 'y', 1)`)
		for _, dir := range []string{filepath.Join(base, "data"), filepath.Join(base, "data", "mem")} {
			if m := modeOf(t, dir); m != 0o700 {
				t.Errorf("%s: mode %04o, want 0700", dir, m)
			}
		}
		for _, f := range []string{path, path + "-wal", path + "-shm", path + ".migrate-lock"} {
			if m := modeOf(t, f); m != 0o600 {
				t.Errorf("%s: mode %04o, want 0600", f, m)
			}
		}
	})
}

// A database an older mem left readable by others is made private when it
// is opened to be used, -wal and -shm included; doctor's inspection
// (NoMigrate) leaves it as it is, to report it.
func TestLooseDatabaseIsMadePrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mem.db")
	ctx := context.Background()
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	files := []string{path, path + "-wal", path + "-shm"}
	for _, f := range files {
		if err := os.Chmod(f, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db, err = Open(ctx, path, Options{NoMigrate: true})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if m := modeOf(t, path); m != 0o644 {
		t.Fatalf("doctor's open changed the mode to %04o", m)
	}
	db, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, f := range files {
		if m := modeOf(t, f); m != 0o600 {
			t.Errorf("%s: mode %04o after open, want 0600", f, m)
		}
	}
}
