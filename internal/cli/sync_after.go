package cli

import (
	"context"
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
	if ev.Kind != hook.KindSessionEnd || !cfg.Settings.Sync.AfterSession {
		return nil
	}
	return startBackgroundSync(app, cfg)
}

// startBackgroundSync starts a detached `mem sync --background` when a
// cluster is set.
func startBackgroundSync(app *App, cfg *config.Config) error {
	if len(cfg.Settings.Sync.URL) == 0 {
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

// backgroundSync syncs in this process when a cluster is set, within
// sync.deadline; a problem goes to the hook log only. mem summarize
// --pending (the nightly job) calls it: a scheduler may end whatever the
// job leaves running, so the sync is not detached there.
func backgroundSync(ctx context.Context, app *App) {
	if len(app.cfg.Settings.Sync.URL) == 0 {
		return
	}
	o := syncOptions{Background: true, Deadline: app.cfg.Settings.Sync.Deadline}
	if err := runSync(ctx, app, o); err != nil {
		logBackground(app, err)
	}
}
