//go:build unix

package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/memhq/mem/internal/store"
)

func permOf(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// privateEnv is a user's environment with the default data and state
// folders under home.
func privateEnv(home string) map[string]string {
	return map[string]string{"HOME": home, "MEM_PROJECT": "p",
		"XDG_DATA_HOME": filepath.Join(home, "share"), "XDG_STATE_HOME": filepath.Join(home, "state"),
		"XDG_CONFIG_HOME": filepath.Join(home, "config")}
}

// What mem creates is private to its user whatever the umask: the data
// folder, the database and its -wal and -shm, an export and the spool of
// hook events with what it holds.
func TestCreatedFilesArePrivate(t *testing.T) {
	home := t.TempDir()
	env := privateEnv(home)
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	if code, _, stderr := run(t, env, "observe", "--session", "s1", "--type", "note", "--title", "kept private"); code != 0 {
		t.Fatalf("observe: %d %s", code, stderr)
	}
	out := filepath.Join(home, "out.jsonl")
	if code, _, stderr := run(t, env, "export", "-o", out); code != 0 {
		t.Fatalf("export: %d %s", code, stderr)
	}
	data := filepath.Join(home, "share", "mem")
	if m := permOf(t, data); m != 0o700 {
		t.Errorf("data folder %s: %04o, want 0700", data, m)
	}
	for _, f := range []string{"mem.db", "mem.db-wal", "mem.db-shm"} {
		if m := permOf(t, filepath.Join(data, f)); m != 0o600 {
			t.Errorf("%s: %04o, want 0600", f, m)
		}
	}
	if m := permOf(t, out); m != 0o600 {
		t.Errorf("export: %04o, want 0600", m)
	}

	// A hook event the database is too busy for waits in the spool.
	db, err := store.Open(context.Background(), filepath.Join(data, "mem.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	hold, err := db.SQL().BeginTx(context.Background(), nil) // BEGIN IMMEDIATE: the write lock
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback()
	event := `{"session_id":"s2","hook_event_name":"UserPromptSubmit","prompt":"why does the refund test fail?"}`
	if code, _, stderr := runIn(t, env, event, "hook", "claude"); code != 0 {
		t.Fatalf("hook: %d %s", code, stderr)
	}
	sp := filepath.Join(data, "mem.db.spool")
	if m := permOf(t, sp); m != 0o700 {
		t.Errorf("spool %s: %04o, want 0700", sp, m)
	}
	spooled, _ := filepath.Glob(filepath.Join(sp, "*.json"))
	if len(spooled) == 0 {
		t.Fatalf("nothing spooled in %s", sp)
	}
	for _, f := range spooled {
		if m := permOf(t, f); m != 0o600 {
			t.Errorf("spooled %s: %04o, want 0600", f, m)
		}
	}
}

// Files and folders an older mem left open to other users: doctor warns of
// each, one line naming it, its mode and the chmod that fixes it, and
// changes nothing; the next command makes them private.
func TestLooseFilesAreWarnedAndMadePrivate(t *testing.T) {
	home := t.TempDir()
	env := privateEnv(home)
	if code, _, stderr := run(t, env, "init"); code != 0 {
		t.Fatalf("init: %d %s", code, stderr)
	}
	data := filepath.Join(home, "share", "mem")
	state := filepath.Join(home, "state", "mem")
	db := filepath.Join(data, "mem.db")
	for _, d := range []string{state, db + ".spool"} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	loose := map[string]os.FileMode{data: 0o755, state: 0o755, db + ".spool": 0o750,
		db: 0o644, db + "-wal": 0o644, db + "-shm": 0o640}
	for p, m := range loose {
		if err := os.Chmod(p, m); err != nil {
			t.Fatal(err)
		}
	}
	// (mem-full is not beside the test binary: doctor fails that check,
	// not the database's.)
	_, stdout, stderr := run(t, env, "doctor")
	if strings.Contains(stderr, "not healthy") {
		t.Fatalf("doctor: the database is unhealthy\n%s%s", stdout, stderr)
	}
	lines := strings.Split(stdout, "\n")
	for p, m := range loose {
		want := fmt.Sprintf("%s is %04o, open to other users: chmod %o '%s'", p, m, m&0o700, p)
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "warn") && strings.HasSuffix(l, want) }) {
			t.Errorf("doctor has no line %q:\n%s", want, stdout)
		}
		if got := permOf(t, p); got != m {
			t.Errorf("doctor changed %s to %04o", p, got)
		}
	}
	if code, _, stderr := run(t, env, "stats"); code != 0 {
		t.Fatalf("stats: %d %s", code, stderr)
	}
	for p, m := range loose {
		if got := permOf(t, p); got != m&0o700 {
			t.Errorf("after a command %s is %04o, want %04o", p, got, m&0o700)
		}
	}
	if _, stdout, _ := run(t, env, "doctor"); strings.Contains(stdout, "warn") || !strings.Contains(stdout, "private to the user") {
		t.Errorf("doctor after the command:\n%s", stdout)
	}
}
