package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/memhq/mem/internal/store"
)

// run calls Main in-process with a private environment.
func run(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	app := NewApp(strings.NewReader(""), &out, &errb)
	app.Getenv = func(k string) string { return env[k] }
	code := Main(context.Background(), app, args)
	return code, out.String(), errb.String()
}

func TestNewerSchemaIsRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mem.db")
	env := map[string]string{"HOME": dir, "MEM_DB": path, "MEM_PROJECT": "p"}
	if code, _, stderr := run(t, env, "init"); code != 0 {
		t.Fatalf("init: %d %s", code, stderr)
	}
	db, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.SQL().MustExec(`PRAGMA user_version = 99`)
	db.Close()
	code, _, stderr := run(t, env, "stats")
	if code != ExitUsage || !strings.Contains(stderr, "newer version of mem") || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("stats on a newer schema: exit %d, stderr %q", code, stderr)
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"HOME": dir, "MEM_DB": filepath.Join(dir, "mem.db"), "MEM_PROJECT": "p"}
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"version"}, ExitOK},
		{[]string{"nope"}, ExitUsage},
		{[]string{"get"}, ExitUsage},
		{[]string{"get", "12"}, ExitUsage},
		{[]string{"observe", "--session", "s", "--type", "note", "--title", "x"}, ExitOK},
		{[]string{"observe", "--session", "s", "--type", "note"}, ExitUsage},
		{[]string{"session", "list", "--limit", "0"}, ExitUsage},
		{append([]string{"get"}, manyIDs(1001)...), ExitUsage},
	}
	for _, tt := range tests {
		if code, _, stderr := run(t, env, tt.args...); code != tt.code {
			t.Errorf("mem %v: exit %d (stderr %q), want %d", tt.args, code, stderr, tt.code)
		}
	}
}

// TestHookNeverFailsOnABadCommandLine: whatever cobra makes of the command
// line, a call of mem hook exits 0, prints nothing on stdout and says what
// was wrong on stderr (one line, also in hook.log).
func TestHookNeverFailsOnABadCommandLine(t *testing.T) {
	for _, args := range [][]string{
		{"--bogus", "hook", "claude"},
		{"--bogus=1", "hook", "codex"},
		{"-x", "hook", "claude"},
		{"--json=maybe", "hook", "gemini"},
		{"--db", "x.db", "--nope", "hook", "claude"},
		{"--project", "p", "-Z", "hook", "opencode"},
		{"--db=x.db", "--bogus", "hook"},
		{"--bogus", "--", "hook", "claude"},
		{"--help", "hook", "claude"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			dir := t.TempDir()
			env := map[string]string{"HOME": dir, "MEM_DB": filepath.Join(dir, "mem.db"), "XDG_STATE_HOME": filepath.Join(dir, "state")}
			code, stdout, stderr := run(t, env, args...)
			if code != 0 || stdout != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 0 and no output", code, stdout, stderr)
			}
			if !strings.Contains(stderr, "mem hook") || strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr %q: want one line from mem hook", stderr)
			}
			if log, err := os.ReadFile(filepath.Join(dir, "state", "mem", "hook.log")); err != nil || string(log) != stderr {
				t.Errorf("hook.log %q (%v), want what stderr says", log, err)
			}
		})
	}
}

// TestOnlyHookIsForgiven: the same bad flags before any other command are
// still usage errors, and a --db value named hook does not make a hook call.
func TestOnlyHookIsForgiven(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"HOME": dir, "MEM_DB": filepath.Join(dir, "mem.db"), "MEM_PROJECT": "p"}
	for _, args := range [][]string{
		{"--bogus", "stats"},
		{"--bogus", "hookx", "claude"},
		{"--db", "hook", "--bogus", "stats"},
		{"--project", "hook", "--bogus"},
	} {
		if code, _, stderr := run(t, env, args...); code != ExitUsage {
			t.Errorf("mem %v: exit %d (stderr %q), want %d", args, code, stderr, ExitUsage)
		}
	}
}

func manyIDs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(i + 1)
	}
	return out
}

// TestHandOff: mem hands mcp, sync and web over to mem-full; without one,
// or when what it handed over to hands over again, it says so in one line
// (exit 1) and writes nothing.
func TestHandOff(t *testing.T) {
	dir, project := t.TempDir(), t.TempDir()
	db := filepath.Join(dir, "mem.db")
	// A hostile project's own mem-full, in the working directory and in bin/.
	for _, d := range []string{".", "bin"} {
		os.MkdirAll(filepath.Join(project, d), 0o755)
		if err := os.WriteFile(filepath.Join(project, d, FullName), []byte("#!/bin/sh\necho pwned\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(project)
	for _, tt := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"PATH": dir}, []string{"web", "--no-open"}, "mem: mem web: mem-full is not installed beside mem nor on PATH; install it where mem is (see README: Install)\n"},
		{map[string]string{"PATH": dir}, []string{"--db", db, "mcp"}, "mem: mem mcp: mem-full is not installed beside mem nor on PATH"},
		{map[string]string{"MEM_HANDED_TO": "/opt/mem-full"}, []string{"sync"}, "mem: mem sync: /opt/mem-full does not hold it; install the mem-full of this mem beside it\n"},
		// A relative PATH folder is the project's: its mem-full never runs.
		{map[string]string{"PATH": "." + string(os.PathListSeparator) + "bin"}, []string{"web", "--no-open"}, "mem: mem web: mem-full is not installed"},
	} {
		code, stdout, stderr := run(t, tt.env, tt.args...)
		if code != ExitFailure || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, tt.want) {
			t.Errorf("mem %v: exit %d, stdout %q, stderr %q; want exit 1 and %q", tt.args, code, stdout, stderr, tt.want)
		}
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("a hand-over that could not happen created the database")
	}
}

// TestCommandOf: a plain command line builds only the command it runs; the
// rest (help, completion, flags cobra must read first) build the whole tree.
func TestCommandOf(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"hook", "claude", "PostToolUse"}, "hook"},
		{[]string{"--db", "x.db", "--json", "search", "q"}, "search"},
		{[]string{"--db=x.db", "--project=p", "get", "1"}, "get"},
		{[]string{"--project", "p"}, ""},
		{[]string{"--bogus", "hook", "claude"}, ""},
		{[]string{"--json=true", "version"}, ""},
		{[]string{"help", "search"}, ""},
		{[]string{"completion", "bash"}, ""},
		{[]string{"__complete", "se"}, ""},
		{nil, ""},
	} {
		if got := commandOf(tt.args); got != tt.want {
			t.Errorf("commandOf(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

// TestCommandNames: each entry of the table builds the command it names, so
// that building one command alone finds the right one.
func TestCommandNames(t *testing.T) {
	app := NewApp(strings.NewReader(""), io.Discard, io.Discard)
	for _, c := range commands() {
		if got := c.New(app).Name(); got != c.Name {
			t.Errorf("commands(): entry %q builds %q", c.Name, got)
		}
	}
	for _, c := range fullOnly {
		if got := handoffCmd(app, c.name, c.short).Name(); got != c.name {
			t.Errorf("fullOnly: entry %q builds %q", c.name, got)
		}
	}
}

// TestInstallMCPSaysMemFullIsMissing: the server an agent is given runs in
// mem-full, so installing it where there is none says so.
func TestInstallMCPSaysMemFullIsMissing(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"HOME": dir, "PATH": t.TempDir(), "MEM_PROJECT": "p"}
	code, stdout, stderr := run(t, env, "install-mcp", "claude", "--dry-run")
	if code != ExitOK || !strings.Contains(stdout, "note: mem mcp runs in mem-full: mem-full is not installed beside mem nor on PATH") {
		t.Errorf("install-mcp without mem-full: exit %d, stdout %q, stderr %q; want exit 0 and a note", code, stdout, stderr)
	}
}
