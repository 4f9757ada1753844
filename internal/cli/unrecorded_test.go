package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memhq/mem/internal/store"
)

// A session start whose block cannot be recorded as given still gives it,
// and says why in hook.log.
func TestHookLogsABlockItCouldNotRecord(t *testing.T) {
	dir := t.TempDir()
	env := dirEnv(dir)
	call := countedCalls(t, env, func() (string, error) { return dir, nil })
	call("", "observe", "--session", "s0", "--type", "decision", "--title", "wombat cache retries back off")
	db, err := store.Open(context.Background(), env["MEM_DB"], store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.SQL().MustExec(`DROP TABLE injections`)
	db.Close()
	ev, _ := json.Marshal(map[string]string{"session_id": "s1", "cwd": dir, "hook_event_name": "SessionStart", "source": "startup"})
	_, out := call(string(ev), "hook", "claude")
	if !strings.Contains(out, "wombat cache") {
		t.Fatalf("the start block was withheld: %q", out)
	}
	log, err := os.ReadFile(filepath.Join(dir, "state", "mem", "hook.log"))
	if err != nil || !strings.Contains(string(log), "recording what was injected") {
		t.Fatalf("hook.log %q (%v): want the failure to record the block", log, err)
	}
}
