package cli

import (
	"context"
	"fmt"

	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/hook"
)

// syncAfterSession starts `mem-full sync --background` when a session
// ends, a cluster is set and sync.after_session is on. The hook has replied
// by then; the new process runs on its own (its own session, no stdin,
// stdout or stderr, so the editor waits for none of it) and is not waited
// for: a slow or unreachable cluster costs the hook only the start of a
// process, and the sync's problems go to the hook log. A sync with no
// shared project ends after reading the file.
func syncAfterSession(app *App, cfg *config.Config, ev hook.Event) error {
	if ev.Kind != hook.KindSessionEnd || !cfg.Settings.Sync.AfterSession || len(cfg.Settings.Sync.URL) == 0 {
		return nil
	}
	cmd, err := app.fullJob(context.Background(), "--db", cfg.Settings.DB, "sync", "--background")
	if err != nil {
		return err
	}
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s sync: %w", cmd.Path, err)
	}
	return cmd.Process.Release()
}

// backgroundSync runs `mem-full sync --background` when a cluster is set and
// waits for it (within sync.deadline, which the sync keeps itself); the
// sync logs its own problems to the hook log, and one that cannot start is
// logged here. mem summarize --pending (the nightly job) calls it: a
// scheduler may end whatever the job leaves running, so it is not detached.
func backgroundSync(ctx context.Context, app *App) {
	if len(app.cfg.Settings.Sync.URL) == 0 {
		return
	}
	if err := runFull(ctx, app, "--db", app.cfg.Settings.DB, "sync", "--background"); err != nil {
		app.LogBackground(err)
	}
}

// LogBackground appends a background sync's problem to the hook log.
func (a *App) LogBackground(err error) {
	(&hook.Logger{Path: a.cfg.Settings.Hook.Log, Now: a.Now}).Printf(hook.Event{Agent: "sync"}, "%v", err)
}
