//go:build unix

package project

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestHostileGitFilesDoNotBlock: a repository whose .git file, commondir or
// config is a FIFO still resolves at once (a FIFO's open waits forever).
func TestHostileGitFilesDoNotBlock(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	mk := func(t *testing.T, path string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Skip("no FIFOs here:", err)
		}
	}
	gitFile := filepath.Join(base, "gitfile")
	mk(t, filepath.Join(gitFile, ".git"))
	config := filepath.Join(base, "config")
	os.MkdirAll(filepath.Join(config, ".git"), 0o755)
	mk(t, filepath.Join(config, ".git", "config"))
	common := filepath.Join(base, "common")
	os.MkdirAll(common, 0o755)
	os.WriteFile(filepath.Join(common, ".git"), []byte("gitdir: ../real/.git/worktrees/x\n"), 0o644)
	mk(t, filepath.Join(base, "real", ".git", "worktrees", "x", "commondir"))
	for _, dir := range []string{gitFile, config, common} {
		done := make(chan Identity, 1)
		go func() {
			id, _ := Resolve(dir, "")
			done <- id
		}()
		select {
		case id := <-done:
			if id.Key == "" {
				t.Errorf("Resolve(%s): no key", dir)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("Resolve(%s): still resolving after 5s", dir)
		}
	}
}
