package hook

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/spool"
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/switches"
)

// A hook process starved past its deadline before it reads its event (a
// machine at load 50) still keeps the event: it is recorded or spooled,
// never dropped for want of time to drain.
func TestAHookStartedPastItsDeadlineKeepsItsEvent(t *testing.T) {
	dir := t.TempDir()
	cfg := &config.Config{Settings: config.Defaults(config.Dirs{Data: dir, State: dir})}
	cfg.Settings.DB = filepath.Join(dir, "mem.db")
	cfg.Settings.Hook.Log = filepath.Join(dir, "hook.log")
	cfg.Settings.Project = "acme/shop"
	on := switches.Setting{On: true, Source: "default"}
	env := Env{
		In:       strings.NewReader(`{"session_id":"s-late","hook_event_name":"UserPromptSubmit","prompt":"hello"}`),
		Out:      io.Discard,
		Getenv:   func(string) string { return "" },
		Getwd:    func() (string, error) { return dir, nil },
		Now:      time.Now,
		Memory:   &fakeMemory{},
		Switches: switches.Settings{Inject: on, Capture: on},
	}
	started := time.Now().Add(-time.Minute)
	Main(context.Background(), cfg, env, &Logger{Path: cfg.Settings.Hook.Log}, "claude", started)

	ctx := context.Background()
	db, err := store.Open(ctx, cfg.Settings.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, recorded := db.Session(ctx, "s-late")
	waiting, _ := spool.Beside(cfg.Settings.DB).Waiting()
	if recorded != nil && len(waiting) == 0 {
		log, _ := os.ReadFile(cfg.Settings.Hook.Log)
		t.Fatalf("the event is neither recorded (%v) nor spooled; hook.log:\n%s", recorded, log)
	}
}
