package cli

import (
	"bytes"
	"context"
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

func manyIDs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(i + 1)
	}
	return out
}
