//go:build unix

package schedule

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// The job's shell command, run by sh under a permissive umask, leaves a log
// folder and a log file only the user can read: the report names sessions
// and projects.
func TestJobLogIsPrivate(t *testing.T) {
	dir := t.TempDir()
	mem := filepath.Join(dir, "mem")
	if err := os.WriteFile(mem, []byte("#!/bin/sh\necho \"summarized: $*\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	logDir := filepath.Join(dir, "state", "mem")
	j := Job{Mem: mem, Log: filepath.Join(logDir, "summarize.log"), Hour: 1, Minute: 2}
	old := syscall.Umask(0)
	out, err := exec.Command("/bin/sh", "-c", j.Shell()).CombinedOutput()
	syscall.Umask(old)
	if err != nil {
		t.Fatalf("%s: %v: %s", j.Shell(), err, out)
	}
	for path, want := range map[string]os.FileMode{logDir: 0o700, j.Log: 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: %04o, want %04o", path, fi.Mode().Perm(), want)
		}
	}
}
