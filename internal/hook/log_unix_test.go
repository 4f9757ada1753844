//go:build unix

package hook

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO or a device named as the hook log must not hold the hook up.
func TestLoggerDoesNotBlockOnAFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "hook.log")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, "/dev/null"} {
		done := make(chan struct{})
		go func() {
			(&Logger{Path: path}).Printf(Event{Agent: "claude-code"}, "a problem")
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			t.Fatalf("logging to %s blocked", path)
		}
	}
}

// A hook log that is a link is not written through.
func TestLoggerDoesNotWriteThroughALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "bashrc")
	if err := os.WriteFile(target, []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "hook.log")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	(&Logger{Path: link}).Printf(Event{Agent: "claude-code"}, "a problem")
	if b, _ := os.ReadFile(target); string(b) != "kept\n" {
		t.Errorf("written through the link: %q", b)
	}
}
