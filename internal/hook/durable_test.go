package hook

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/spool"
	"github.com/memhq/mem/internal/store"
)

// A hook killed at any moment after it read its event (the editor's kill at
// its timeout, the user interrupting the agent) loses nothing: the event is
// on disk before the database is opened, and the next process applies it.
func TestEventOfAHookKilledBeforeTheDatabaseIsApplied(t *testing.T) {
	if dir := os.Getenv("HOOK_KILL_DIR"); dir != "" {
		// The hook: its database never answers (a machine too loaded to
		// get there); it says when it is opening it, and is killed then.
		r := newRig(t)
		sp := spool.Beside(filepath.Join(dir, "mem.db"))
		r.h.Spool = &sp
		r.h.Open = func(ctx context.Context) (*store.DB, error) {
			os.Stdout.WriteString("opening\n")
			<-ctx.Done()
			time.Sleep(time.Hour)
			return nil, ctx.Err()
		}
		run := &Runner{Adapter: adapter("claude"), Handler: r.h, Deadline: time.Hour,
			Getenv: func(string) string { return "" }, Log: &Logger{}}
		run.Run(context.Background(), strings.NewReader(prompt("killed", "the prompt of a killed hook")), &bytes.Buffer{})
		os.Exit(0)
	}
	r, path := spoolRig(t)
	cmd := exec.Command(os.Args[0], "-test.run", "^TestEventOfAHookKilledBeforeTheDatabaseIsApplied$")
	// The child is killed, so its own temporary folders are made in one of
	// this test's, which goes with it.
	cmd.Env = append(os.Environ(), "HOOK_KILL_DIR="+filepath.Dir(path), "TMPDIR="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	cmd.Process.Kill()
	cmd.Wait()
	if line != "opening\n" {
		t.Fatalf("the hook said %q", line)
	}
	// The next hook applies it, before its own event.
	r.run(t, "claude", prompt("killed", "the next prompt"))
	if got := r.prompts(t, "killed"); strings.Join(got, "|") != "the prompt of a killed hook|the next prompt" {
		t.Fatalf("prompts %q, want the killed hook's first", got)
	}
	if n, failed, _ := spool.Beside(path).Len(); n != 0 || failed != 0 {
		t.Fatalf("%d left in the spool, %d set aside", n, failed)
	}
}
