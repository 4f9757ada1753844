//go:build unix

package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runWithin calls Main in-process and fails the test when it takes longer
// than limit: opening a FIFO the blocking way, or a file nested 100,000
// deep, would hang it.
func runWithin(t *testing.T, limit time.Duration, env map[string]string, args ...string) (int, string) {
	t.Helper()
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		app := NewApp(strings.NewReader(""), &out, &errb)
		app.Getenv = func(k string) string { return env[k] }
		code := Main(context.Background(), app, args)
		done <- result{code, errb.String()}
	}()
	select {
	case r := <-done:
		return r.code, r.stderr
	case <-time.After(limit):
		t.Fatalf("mem %v: still running after %v", args, limit)
		return 0, ""
	}
}

// hostileEnv makes a home folder and a repository, and runs the test in the
// repository.
func hostileEnv(t *testing.T) (home, repo string, env map[string]string) {
	t.Helper()
	base := t.TempDir()
	home, repo = filepath.Join(base, "home"), filepath.Join(base, "repo")
	for _, d := range []string{home, repo} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(repo)
	env = map[string]string{"HOME": home, "MEM_DB": filepath.Join(base, "mem.db"), "XDG_STATE_HOME": filepath.Join(base, "state")}
	return home, repo, env
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFIFOsAreRefusedAtOnce: a settings file or a .mem that is a FIFO is
// refused with exit 2 and one line naming it, without waiting for a writer.
func TestFIFOsAreRefusedAtOnce(t *testing.T) {
	for _, tc := range []struct {
		file string // relative to the repository
		args []string
	}{
		{".claude/settings.json", []string{"install", "claude", "--scope", "project", "--bin", "mem"}},
		{".claude/settings.json", []string{"uninstall", "claude", "--scope", "project"}},
		{".mcp.json", []string{"install-mcp", "claude", "--scope", "project", "--command", "mem"}},
		{".codex/config.toml", []string{"uninstall-mcp", "codex", "--scope", "project"}},
		{".opencode/plugins/mem.js", []string{"install", "opencode", "--scope", "project", "--bin", "mem"}},
		{".mem", []string{"disable"}},
		{".mem", []string{"enable", "inject"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, repo, env := hostileEnv(t)
			mkfifo(t, filepath.Join(repo, tc.file))
			code, stderr := runWithin(t, 2*time.Second, env, tc.args...)
			if code != ExitUsage || !strings.Contains(stderr, tc.file+": not a regular file: it is a FIFO") || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want exit 2 and one line saying %s is a FIFO", code, stderr, tc.file)
			}
		})
	}
}

// TestDeeplyNestedSettings: a settings file nested 100,000 deep is refused
// at once, naming the limit; one nested a little deeper than agents need is
// still edited.
func TestDeeplyNestedSettings(t *testing.T) {
	for _, tc := range []struct {
		depth int
		code  int
	}{
		{100_000, ExitUsage},
		{600, ExitUsage},
		{100, ExitOK},
	} {
		home, _, env := hostileEnv(t)
		p := filepath.Join(home, ".gemini", "settings.json")
		doc := `{"deep": ` + strings.Repeat("[", tc.depth) + strings.Repeat("]", tc.depth) + "}"
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		code, stderr := runWithin(t, 2*time.Second, env, "install", "gemini", "--bin", "mem")
		t.Logf("depth %d: exit %d in %v", tc.depth, code, time.Since(t0).Round(time.Millisecond))
		if code != tc.code || (code != 0 && !strings.Contains(stderr, "nested more than 512 deep")) {
			t.Errorf("depth %d: exit %d, stderr %q; want exit %d", tc.depth, code, stderr, tc.code)
		}
		if b, _ := os.ReadFile(p); code != 0 && string(b) != doc {
			t.Errorf("depth %d: the refused file was changed", tc.depth)
		}
	}
}

// TestExportRefusesTheDatabase: export -o naming the database, or a file
// SQLite keeps beside it, under another name is refused with exit 2 and the
// database stays whole; an ordinary file is still written.
func TestExportRefusesTheDatabase(t *testing.T) {
	_, repo, env := hostileEnv(t)
	env["MEM_PROJECT"] = "p"
	db := env["MEM_DB"]
	if code, stderr := runWithin(t, 10*time.Second, env, "observe", "--session", "s", "--type", "note", "--title", "still here"); code != 0 {
		t.Fatalf("observe: exit %d %s", code, stderr)
	}
	rel, err := filepath.Rel(repo, db)
	if err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(repo, "hard.jsonl")
	if err := os.Link(db, hard); err != nil {
		t.Fatal(err)
	}
	walLink := filepath.Join(repo, "wal.jsonl")
	if err := os.Symlink(db+"-wal", walLink); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{db, rel, hard, walLink, rel + "-wal", rel + "-shm", rel + "-journal"} {
		code, stderr := runWithin(t, 10*time.Second, env, "export", "-o", out)
		if code != ExitUsage || !strings.Contains(stderr, "--output") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("export -o %s: exit %d, stderr %q; want exit 2, one line about --output", out, code, stderr)
		}
	}
	if _, err := os.Stat(db + "-journal"); err == nil {
		t.Error("an export was written as the database's -journal file")
	}
	// The database is what must be well; no mem-full is beside a test binary.
	if code, stderr := runWithin(t, 10*time.Second, env, "doctor"); code != 0 && !strings.HasPrefix(stderr, "mem: mem mcp, sync and web will not run") {
		t.Errorf("doctor after the refused exports: exit %d %s", code, stderr)
	}
	if code, stderr := runWithin(t, 10*time.Second, env, "export", "-o", "good.jsonl"); code != 0 {
		t.Fatalf("export: exit %d %s", code, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(repo, "good.jsonl")); err != nil || !bytes.Contains(b, []byte("still here")) {
		t.Errorf("export after the refusals: %v, %d bytes without the observation", err, len(b))
	}
}
