package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/agent"
	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/hook"
	"github.com/memhq/mem/internal/project"
	"github.com/memhq/mem/internal/spool"
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/switches"
)

// newHookCmd is `mem hook <agent>`, what editors run. It parses its own
// arguments so that no command line, however wrong, makes it fail.
func newHookCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "hook " + strings.Join(agent.Names(), "|"),
		Short: "Answer an editor hook event read on stdin (always exits 0)",
		Long: `Read one hook event as JSON on stdin, record what it is worth and print the reply the editor
expects (or nothing). It exits 0 on every path and answers within hook.deadline; problems go to
stderr and to the hook.log file. mem install sets editors up to run it.

When another process holds the database past a short wait (50 ms), the event is written to the
spool folder beside the database (<db>.spool) and the reply is empty; the next mem process that
gets the database (a hook, or a command that writes) applies spooled events in the order they
arrived, each once. mem doctor counts the events waiting.`,
		Hidden:             true,
		DisableFlagParsing: true,
		PersistentPreRunE: func(*cobra.Command, []string) error {
			app.started = true
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			// Flags are the hook's own to parse: help is asked for only
			// with no agent named, as no editor calls it.
			if slices.Contains(args, "--help") || slices.Contains(args, "-h") {
				if agent, _ := hookArgs(args); agent == "" {
					cmd.SetOut(app.Out) // Main discards cobra's own output for mem hook
					return cmd.Help()
				}
			}
			runHook(cmd.Context(), app, args, time.Now())
			return nil
		},
	}
}

// hookArgs picks the agent and the --db and --project flags out of the
// arguments; anything else is ignored.
func hookArgs(args []string) (agent string, flags map[string]string) {
	flags = map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") {
			if name == "db" || name == "project" {
				if !hasValue && i+1 < len(args) {
					i++
					value = args[i]
				}
				flags[name] = value
			}
			continue
		}
		if agent == "" {
			agent = a
		}
	}
	return agent, flags
}

// hookCall returns the index of "hook" in args when they call mem hook (it
// is the first positional argument, the values of --db and --project given
// as separate arguments skipped), or -1.
func hookCall(args []string) int {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--":
			if i+1 < len(args) && args[i+1] == "hook" {
				return i + 1
			}
			return -1
		case a == "--db" || a == "--project":
			i++
		case strings.HasPrefix(a, "-") && a != "-":
		case a == "hook":
			return i
		default:
			return -1
		}
	}
	return -1
}

// hookLogger returns mem hook's logger, writing to the configured hook.log
// when the configuration (also returned) can be read. A number or duration
// out of its range keeps its default and is logged.
func hookLogger(app *App, agent string, flags map[string]string) (*hook.Logger, *config.Config, error) {
	log := &hook.Logger{Err: app.Err, Path: filepath.Join(config.UserDirs(app.Getenv).State, "hook.log"), Now: app.Now}
	cfg, skipped, err := config.LoadLenient(app.Getenv, flags)
	if err != nil {
		return log, nil, err
	}
	log.Path = cfg.Settings.Hook.Log
	if skipped != nil {
		log.Printf(hook.Event{Agent: agent}, "configuration: %v (using the default)", skipped)
	}
	return log, cfg, nil
}

// hookRefused logs a call of mem hook (args[at] is "hook") whose command
// line cobra did not accept, so the hook never ran.
func hookRefused(app *App, args []string, at int, err error) {
	agent, flags := hookArgs(append(append([]string{}, args[:at]...), args[at+1:]...))
	log, _, _ := hookLogger(app, agent, flags)
	why := "not understood"
	if err != nil {
		why = err.Error()
	}
	log.Printf(hook.Event{Agent: agent}, "command line %q: %s: nothing done", args, why)
}

func runHook(ctx context.Context, app *App, args []string, started time.Time) {
	name, flags := hookArgs(args)
	fail := hook.Event{Agent: name}
	log, cfg, err := hookLogger(app, name, flags)
	defer func() {
		if p := recover(); p != nil {
			log.Printf(fail, "panic: %v", p)
		}
	}()
	if err != nil {
		log.Printf(fail, "configuration: %v (hook disabled until it is fixed)", err)
		return
	}
	app.cfg = cfg
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
		d, err := store.Open(ctx, cfg.Settings.DB, store.Options{BusyTimeoutMillis: 1, Wait: hookLockWait, Connector: app.connector})
		db.Store(d)
		return d, err
	}
	h, err := newHookHandler(app, cfg, open, min(hookDrainFor, time.Until(started.Add(deadline))/4),
		func(format string, a ...any) { log.Printf(fail, format, a...) })
	if err != nil {
		log.Printf(fail, "%v", err)
		return
	}
	r := &hook.Runner{Adapter: a.Adapter, Handler: h, Deadline: deadline, Getenv: app.Getenv, Log: log, Started: started}
	r.Replied = func(ev hook.Event) {
		if err := syncAfterSession(app, cfg, ev); err != nil {
			log.Printf(ev, "starting the background sync: %v", err)
		}
	}
	if r.Run(ctx, app.In, app.Out) {
		if d := db.Load(); d != nil {
			trimWAL(ctx, d, started.Add(deadline))
		}
	}
	// The database is deliberately not closed: closing the last connection
	// checkpoints the WAL into the database and syncs it, which cost a hook
	// 40-90 ms here against 1-2 ms for everything else it does.
}

// A hook waits hookLockWait for a database another process writes to, then
// spools its event (hook.Handler); one that gets the database applies the
// spooled events first, for at most hookDrainFor (or a quarter of the time
// left before its deadline). The hook-burst and db-locked checks of
// scripts/stress hold with these (internal/spool/README.md).
const (
	hookLockWait = 50 * time.Millisecond
	hookDrainFor = 150 * time.Millisecond
)

// newHookHandler returns the hook handler over the configuration, opening
// the database with open: what mem hook runs and what applies spooled
// events. The engine answers with the blocks `mem inject` prints, the
// extractive summary (at SessionEnd, and as the checkpoint before
// compaction) and prompt-time context (README).
func newHookHandler(app *App, cfg *config.Config, open func(context.Context) (*store.DB, error), drainFor time.Duration,
	logf func(format string, a ...any)) (*hook.Handler, error) {
	sp := spool.Beside(cfg.Settings.DB)
	return hook.New(hook.Deps{
		Open:    open,
		Project: func(dir string) (project.Identity, error) { return project.Resolve(dir, cfg.Settings.Project) },
		Switches: func(root string) switches.Decision {
			return switches.Decide(SwitchSettings(cfg, app.Getenv), root)
		},
		Memory:   app.Engine(),
		Getwd:    app.Getwd,
		Now:      app.Now,
		Logf:     logf,
		Spool:    &sp,
		DrainFor: drainFor,
		MaxChars: cfg.Settings.Inject.MaxChars,
	})
}

// cliDrainFor bounds how long a command applies spooled hook events before
// doing its own work.
const cliDrainFor = 5 * time.Second

// drainSpool applies the hook events spooled beside db (while the database
// was too busy for the hooks). With wait, it waits for the drain lock and
// the database as the command's writes do; without, it applies them only if
// both are free at once. Problems go to hook.log: they concern the hooks,
// not the command.
func drainSpool(ctx context.Context, app *App, db *store.DB, wait bool) {
	sp := spool.Beside(db.Path())
	if n, _, _ := sp.Len(); n == 0 {
		return
	}
	until := time.Now().Add(cliDrainFor)
	lockBy := time.Now()
	if wait {
		lockBy = until
	}
	release, ok := lockSpool(sp, lockBy)
	if !ok {
		return
	}
	defer release()
	if !wait {
		db = db.WithWait(0)
	}
	log := &hook.Logger{Path: app.cfg.Settings.Hook.Log, Now: app.Now}
	h, err := newHookHandler(app, app.cfg, func(context.Context) (*store.DB, error) { return db, nil }, 0,
		func(format string, a ...any) { log.Printf(hook.Event{Agent: "spool"}, format, a...) })
	if err != nil {
		log.Printf(hook.Event{Agent: "spool"}, "%v", err)
		return
	}
	if _, err := h.Drain(ctx, db, until); err != nil && !errors.Is(err, store.ErrBusy) {
		log.Printf(hook.Event{Agent: "spool"}, "applying spooled events: %v", err)
	}
}

// lockSpool takes the spool's drain lock, trying until until.
func lockSpool(sp spool.Dir, until time.Time) (release func(), ok bool) {
	release, ok = sp.TryLock()
	for ; !ok && time.Now().Before(until); release, ok = sp.TryLock() {
		time.Sleep(10 * time.Millisecond) // a hook is applying it: its turn is short
	}
	return release, ok
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

func homeDir(getenv func(string) string) string { return config.HomeFor(runtime.GOOS, getenv) }

// SwitchSettings reads the global switches from the configuration.
func SwitchSettings(cfg *config.Config, getenv func(string) string) switches.Settings {
	s := &cfg.Settings
	src := func(field any) string { return cfg.Origin(field).From() }
	return switches.Settings{
		Inject:        switches.Setting{On: s.Inject.Enabled, Source: src(&s.Inject.Enabled)},
		Capture:       switches.Setting{On: s.Capture.Enabled, Source: src(&s.Capture.Enabled)},
		Exclude:       s.Exclude.Paths,
		ExcludeSource: src(&s.Exclude.Paths),
		Home:          homeDir(getenv),
	}
}
