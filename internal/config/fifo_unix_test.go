//go:build unix

package config

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
)

// TestFileThatIsNoFileIsRefusedAtOnce: a FIFO (which would block the open
// forever), a device or a directory as the config file is refused without
// waiting.
func TestFileThatIsNoFileIsRefusedAtOnce(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, path := range []string{fifo, "/dev/zero", dir} {
		done := make(chan error, 1)
		go func() {
			_, err := Load(env(map[string]string{"HOME": dir, "MEM_CONFIG": path}), nil)
			done <- err
		}()
		select {
		case err := <-done:
			if !memory.IsInvalid(err) || !strings.Contains(err.Error(), "config file: must be a regular file") {
				t.Errorf("MEM_CONFIG=%s: %v", path, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("MEM_CONFIG=%s: still loading after 5s", path)
		}
	}
}
