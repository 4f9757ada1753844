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

// The folders the hook log is created in are private to the user, as the
// log is: it names sessions and what went wrong in them. The umask is
// cleared so that only the mode asked for counts.
func TestLoggerCreatesPrivateFolders(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "state", "mem", "hook.log")
	(&Logger{Path: path}).Printf(Event{Agent: "claude-code"}, "a problem")
	for _, p := range []string{filepath.Join(dir, "state"), filepath.Dir(path)} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if perm := fi.Mode().Perm(); perm != 0o700 {
			t.Errorf("%s: mode %#o, want 0700", p, perm)
		}
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("hook.log: %v, %v; want mode 0600", fi, err)
	}
}
