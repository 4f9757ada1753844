//go:build unix

package cli

import (
	"net"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNothingBlocksOnFIFOsOrDevices: a FIFO, a socket or a device where mem
// expects its database, its config file or an input file is refused in one
// line (or, for an input pipe, read) without waiting for a writer.
func TestNothingBlocksOnFIFOsOrDevices(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	db := filepath.Join(dir, "mem.db")
	tests := []struct {
		db, config string
		args       []string
		code       int
		stderr     string
	}{
		{fifo, "", []string{"get", "1"}, ExitUsage, `"` + fifo + `": it is a FIFO`},
		{fifo, "", []string{"observe", "--session", "s", "--type", "note", "--title", "x"}, ExitUsage, "it is a FIFO"},
		{fifo, "", []string{"search", "x"}, ExitUsage, "it is a FIFO"},
		{fifo, "", []string{"init"}, ExitUsage, "it is a FIFO"},
		{"/dev/null", "", []string{"init"}, ExitUsage, `"/dev/null": it is a device`},
		{"/dev/zero", "", []string{"search", "x"}, ExitUsage, "it is a device"},
		{sock, "", []string{"stats"}, ExitUsage, "it is a socket"},
		{db, fifo, []string{"config", "show"}, ExitUsage, "config file: must be a regular file of at most 1 MiB"},
		{db, fifo, []string{"search", "x"}, ExitUsage, "it is a FIFO"},
		{db, fifo, []string{"hook", "claude"}, ExitOK, "hook disabled until it is fixed"},
		{fifo, "", []string{"hook", "claude"}, ExitOK, ""},
		{db, "", []string{"import", fifo}, ExitOK, ""},
		{db, "", []string{"import", "/dev/zero"}, ExitUsage, "file: must be a readable file or pipe"},
		{db, "", []string{"import", sock}, ExitUsage, "file: must be a readable file or pipe"},
		{db, "", []string{"observe", "--session", "s", "--input", "/dev/zero"}, ExitUsage, "--input: must be a readable file or pipe"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(append([]string{tt.db, tt.config}, tt.args...), " "), func(t *testing.T) {
			env := map[string]string{"HOME": dir, "MEM_DB": tt.db, "MEM_CONFIG": tt.config, "MEM_PROJECT": "p",
				"XDG_STATE_HOME": filepath.Join(dir, "state")}
			type result struct {
				code           int
				stdout, stderr string
			}
			done := make(chan result, 1)
			start := time.Now()
			go func() {
				code, stdout, stderr := run(t, env, tt.args...)
				done <- result{code, stdout, stderr}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("still running after 5s")
			}
			if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr) || strings.Count(r.stderr, "\n") > 1 {
				t.Fatalf("exit %d, stderr %q; want exit %d and one line with %q", r.code, r.stderr, tt.code, tt.stderr)
			}
			if tt.args[0] == "hook" && time.Since(start) > 2*time.Second {
				t.Errorf("hook answered after %v, past its 2s deadline", time.Since(start))
			}
		})
	}
}
