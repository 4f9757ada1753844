package hook

import (
	"context"
	"database/sql/driver"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/memhq/mem/internal/agent"
	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/project"
	"github.com/memhq/mem/internal/spool"
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/switches"
)

// Env is what mem hook, and a command applying the spool, work with
// besides the configuration: the process's streams and environment and
// mem's memory.
type Env struct {
	In     io.Reader
	Out    io.Writer
	Getenv func(string) string
	Getwd  func() (string, error)
	Now    func() time.Time
	// Memory answers with the blocks `mem inject` prints, the extractive
	// summary and prompt-time context.
	Memory Memory
	// Switches are the global switches (inject, capture, excluded paths).
	Switches switches.Settings
	// Connector wraps the database driver's connector (tests count
	// transactions through it); nil: none.
	Connector func(driver.Connector) driver.Connector
	// Replied is called with the event once the reply is out (Runner);
	// nil: nothing.
	Replied func(Event)
}

// A hook waits lockWait for a database another process writes to, then
// spools its event (Handler); one that gets the database applies the
// spooled events first, for at most drainFor (or a quarter of the time
// left before its deadline). The hook-burst and db-locked checks of
// scripts/stress hold with these (internal/spool/README.md).
const (
	lockWait = 50 * time.Millisecond
	drainFor = 150 * time.Millisecond
)

// Main is mem hook for the agent named name: it reads the event from
// env.In, handles it and writes the reply to env.Out, within the deadline
// cfg sets counted from started. It never fails: problems go to log.
func Main(ctx context.Context, cfg *config.Config, env Env, log *Logger, name string, started time.Time) {
	fail := Event{Agent: name}
	a, ok := agent.Lookup(name)
	if !ok {
		names := agent.Names()
		n := len(names) - 1
		log.Printf(fail, "unknown agent %q: want %s or %s", name, strings.Join(names[:n], ", "), names[n])
		return
	}
	deadline := cfg.Settings.Hook.Deadline
	// Opened on the handler's goroutine, which may still run when Run
	// returns (a spooled event): hence atomic.
	var db atomic.Pointer[store.DB]
	open := func(ctx context.Context) (*store.DB, error) {
		d, err := store.Open(ctx, cfg.Settings.DB, store.Options{BusyTimeoutMillis: 1, Wait: lockWait, Connector: env.Connector})
		db.Store(d)
		return d, err
	}
	// A process started past its deadline (starved before it got here)
	// drains nothing, but still keeps its event.
	h, err := newHandler(cfg, env, open, max(0, min(drainFor, time.Until(started.Add(deadline))/4)),
		func(format string, a ...any) { log.Printf(fail, format, a...) })
	if err != nil {
		log.Printf(fail, "%v", err)
		return
	}
	r := &Runner{Adapter: a.Adapter, Handler: h, Deadline: deadline, Getenv: env.Getenv, Log: log, Started: started,
		Replied: env.Replied}
	if r.Run(ctx, env.In, env.Out) {
		if d := db.Load(); d != nil {
			trimWAL(ctx, d, started.Add(deadline))
		}
	}
	// The database is deliberately not closed: closing the last connection
	// checkpoints the WAL into the database and syncs it, which cost a hook
	// 40-90 ms here against 1-2 ms for everything else it does.
}

// newHandler returns the handler over the configuration, opening the
// database with open: what mem hook runs and what applies spooled events.
func newHandler(cfg *config.Config, env Env, open func(context.Context) (*store.DB, error), drainFor time.Duration,
	logf func(format string, a ...any)) (*Handler, error) {
	sp := spool.Beside(cfg.Settings.DB)
	return New(Deps{
		Open:     open,
		Project:  func(dir string) (project.Identity, error) { return project.Resolve(dir, cfg.Settings.Project) },
		Switches: func(root string) switches.Decision { return switches.Decide(env.Switches, root) },
		Memory:   env.Memory,
		Getwd:    env.Getwd,
		Now:      env.Now,
		Logf:     logf,
		Spool:    &sp,
		DrainFor: drainFor,
		MaxChars: cfg.Settings.Inject.MaxChars,
	})
}

// ApplyFor bounds how long a command applies spooled hook events before
// doing its own work.
const ApplyFor = 5 * time.Second

// ApplySpool applies the hook events spooled beside db (while the database
// was too busy for the hooks), before a command's own writes, so that they
// keep their order: it waits for the drain lock and the database as the
// command's writes do, for at most ApplyFor. Problems go to hook.log: they
// concern the hooks, not the command.
func ApplySpool(ctx context.Context, cfg *config.Config, env Env, db *store.DB) {
	log := &Logger{Path: cfg.Settings.Hook.Log, Now: env.Now}
	logf := func(format string, a ...any) { log.Printf(Event{Agent: "spool"}, format, a...) }
	h, err := newHandler(cfg, env, func(context.Context) (*store.DB, error) { return db, nil }, 0, logf)
	if err != nil {
		logf("%v", err)
		return
	}
	h.Spool.ApplyWaiting(ctx, db, time.Now().Add(ApplyFor), h)
}

// walTrimBytes is the WAL size above which a hook checkpoints it. Every
// process that opens the database alone reads the whole WAL to rebuild its
// index (a 36 MB WAL made each hook take 90 ms instead of 12), so the WAL is
// kept small, at the price of one checkpoint every few hundred hooks.
const walTrimBytes = 1 << 20

// trimWAL checkpoints and truncates a WAL that has grown past walTrimBytes,
// when there is time left before the deadline. The reply is already out.
func trimWAL(ctx context.Context, db *store.DB, deadline time.Time) {
	fi, err := os.Stat(db.Path() + "-wal")
	if err != nil || fi.Size() < walTrimBytes || time.Until(deadline) < 300*time.Millisecond {
		return
	}
	ctx, cancel := context.WithDeadline(ctx, deadline.Add(-100*time.Millisecond))
	defer cancel()
	_, _ = db.SQL().ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
}
