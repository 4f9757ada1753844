//go:build unix

package project

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestResolveInAHostileRepository: a FIFO where git keeps small files does
// not block, and control characters in a remote URL or a folder name come
// back escaped, the same each time.
func TestResolveInAHostileRepository(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	mk := func(dir string) string {
		d := filepath.Join(base, dir)
		if err := os.MkdirAll(filepath.Join(d, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	fifo := mk("fifo-config")
	if err := syscall.Mkfifo(filepath.Join(fifo, ".git", "config"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	fifoFile := filepath.Join(base, "fifo-gitfile")
	os.MkdirAll(fifoFile, 0o755)
	if err := syscall.Mkfifo(filepath.Join(fifoFile, ".git"), 0o644); err != nil {
		t.Fatal(err)
	}
	remote := mk("remote")
	os.WriteFile(filepath.Join(remote, ".git", "config"), []byte("[remote \"origin\"]\n\turl = https://github.com/a/b\x1b]52;c;eA==\x07\n"), 0o644)
	weird := mk("we\x1b[2Jird")
	for _, tc := range []struct {
		dir, key string
	}{
		{fifo, fifo},
		{remote, `github.com/a/b\x1b]52;c;ea==\a`},
		{weird, filepath.Join(base, `we\x1b[2Jird`)},
	} {
		done := make(chan Identity, 1)
		go func() {
			id, _ := Resolve(tc.dir, "")
			done <- id
		}()
		select {
		case id := <-done:
			if id.Key != tc.key {
				t.Errorf("Resolve(%q) = key %q, want %q", tc.dir, id.Key, tc.key)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("Resolve(%q) blocked", tc.dir)
		}
	}
	if id, _ := Resolve(remote, "p\u2028\x1b[2J"); id.Key != `p\u2028\x1b[2J` {
		t.Errorf("override kept as %q", id.Key)
	}
	// A .git file that is a FIFO is refused, not waited on.
	done := make(chan error, 1)
	go func() {
		_, err := Resolve(fifoFile, "")
		done <- err
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Resolve blocked on a FIFO .git file")
	}
}
