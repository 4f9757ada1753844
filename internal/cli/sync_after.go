package cli

import (
	"fmt"
	"os"
	"os/exec"

	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/hook"
)

// syncAfterSession starts `mem sync --background` when a session ends, a
// cluster is set and sync.after_session is on. The hook has replied by
// then; the new process runs on its own (its own session, no stdin,
// stdout or stderr, so the editor waits for none of it) and is not waited
// for: a slow or unreachable cluster costs the hook only the start of a
// process, and the sync's problems go to the hook log. A sync with no
// shared project ends after reading the file.
func syncAfterSession(app *App, cfg *config.Config, ev hook.Event) error {
	s := cfg.Settings.Sync
	if ev.Kind != hook.KindSessionEnd || !s.AfterSession || len(s.URL) == 0 {
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding mem's own binary: %w", err)
	}
	cmd := exec.Command(self, "--db", cfg.Settings.DB, "sync", "--background")
	cmd.Env = os.Environ()
	if app.Getenv("MEM_CONFIG") != "" {
		cmd.Env = append(cmd.Env, "MEM_CONFIG="+app.Getenv("MEM_CONFIG"))
	}
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s sync: %w", self, err)
	}
	return cmd.Process.Release()
}
