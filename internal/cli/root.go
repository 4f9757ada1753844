// Package cli is mem's command line: one file per command, each parsing its
// flags into an options struct and calling a run function that tests can
// call directly.
package cli

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/fsafe"
	"github.com/memhq/mem/internal/hook"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/project"
	"github.com/memhq/mem/internal/remember"
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/termsafe"
)

// App carries what every command needs: the streams, the environment, the
// global flags and, once opened, the configuration and the database.
type App struct {
	In     io.Reader
	Out    io.Writer
	Err    io.Writer
	Getenv func(string) string
	Getwd  func() (string, error)
	Now    func() time.Time

	started     bool // a command's hooks ran: errors before that are usage errors
	args        []string
	handedTo    string // the mem-full a mem handed this call over to (MEM_HANDED_TO)
	dbFlag      string
	projectFlag string
	JSON        bool

	cfg    *config.Config
	db     *store.DB
	engine *remember.Engine
	// connector wraps the database's driver connector (tests count
	// transactions through it); nil in mem itself.
	connector func(driver.Connector) driver.Connector
}

// NewApp returns an App wired to the process's streams and environment.
func NewApp(in io.Reader, out, errw io.Writer) *App {
	return &App{In: in, Out: out, Err: errw, Getenv: os.Getenv, Getwd: os.Getwd, Now: time.Now}
}

// Main runs mem with args and returns the process exit code. mem-full
// passes the commands only it links as full; mem hands those over to it.
func Main(ctx context.Context, app *App, args []string, full ...Command) int {
	app.args = args
	if app.handedTo = app.Getenv(handoffEnv); app.handedTo != "" {
		os.Unsetenv(handoffEnv) // what this process starts was not handed over
	}
	root := newRoot(app, args, full)
	root.SetArgs(args)
	root.SetIn(app.In)
	root.SetOut(app.Out)
	root.SetErr(app.Err)
	at := hookCall(args)
	if at >= 0 {
		// What cobra prints itself (help, usage) is no reply for an editor.
		root.SetOut(io.Discard)
	}
	err := root.ExecuteContext(ctx)
	if app.db != nil {
		app.db.Close()
	}
	if at >= 0 && !app.started {
		// Cobra refused the command line before mem hook could run; the
		// editor still must not fail.
		hookRefused(app, args, at, err)
		return ExitOK
	}
	if err == nil {
		return 0
	}
	var ex *exitError
	if errors.As(err, &ex) {
		if ex.msg != "" {
			fmt.Fprintln(app.Err, "mem: "+termsafe.Line(ex.msg))
		}
		return ex.code
	}
	fmt.Fprintln(app.Err, "mem: "+termsafe.Line(oneLine(err.Error())))
	if !app.started {
		return ExitUsage // cobra refused the command line: unknown command or flag
	}
	return ExitCode(err)
}

// Command is a command of mem by name, built only when a call needs it.
type Command struct {
	Name string
	New  func(*App) *cobra.Command
}

// commands are mem's own commands, in the order of its help.
func commands() []Command {
	return []Command{
		{"init", newInitCmd},
		{"session", newSessionCmd},
		{"observe", newObserveCmd},
		{"prompt", newPromptCmd},
		{"get", newGetCmd},
		{"search", newSearchCmd},
		{"timeline", newTimelineCmd},
		{"inject", newInjectCmd},
		{"forget", newForgetCmd},
		{"review", newReviewCmd},
		{"export", newExportCmd},
		{"import", newImportCmd},
		{"stats", newStatsCmd},
		{"summarize", newSummarizeCmd},
		{"doctor", newDoctorCmd},
		{"install-mcp", newInstallMCPCmd},
		{"uninstall-mcp", newUninstallMCPCmd},
		{"config", newConfigCmd},
		{"context", newContextCmd},
		{"version", newVersionCmd},
		{"hook", newHookCmd},
		{"disable", func(a *App) *cobra.Command { return newSwitchCmd(a, false) }},
		{"enable", func(a *App) *cobra.Command { return newSwitchCmd(a, true) }},
		{"install", func(a *App) *cobra.Command { return newInstallCmd(a, false) }},
		{"uninstall", func(a *App) *cobra.Command { return newInstallCmd(a, true) }},
		{"schedule", newScheduleCmd},
		{"share", func(a *App) *cobra.Command { return newShareCmd(a, false) }},
		{"unshare", func(a *App) *cobra.Command { return newShareCmd(a, true) }},
		{"remote", newRemoteCmd},
	}
}

// NewRootCmd builds the whole command tree of mem.
func NewRootCmd(app *App) *cobra.Command { return newRoot(app, nil, nil) }

// newRoot builds the command tree for args: only the command args run when
// that is plain (most calls: a hook, a search), so that a call does not pay
// for building the flags and help of thirty commands; the whole tree
// otherwise (help, completion, a misspelt command). The commands in full
// replace mem's stand-ins for them.
func newRoot(app *App, args []string, full []Command) *cobra.Command {
	root := &cobra.Command{
		Use:   "mem",
		Short: "Persistent memory for AI coding agents",
		Long: `mem keeps what happened in past agent sessions of a project (observations and one
summary per session) in one SQLite file, and gives the right slice of it back to the agent.

Stored text comes from tools, files and editor events: commands printing it for a person show its
control characters (escape sequences, U+2028, bidirectional overrides) as visible escapes such as
\x1b; --json prints JSON. Ids (session ids, --project, uuids) with control characters are refused.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			app.started = true
			return app.load(cmd)
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return UsageErr(err) })
	pf := root.PersistentFlags()
	pf.StringVar(&app.dbFlag, "db", "", "database file (env MEM_DB; default mem.db in the data folder: ~/.local/share/mem on Linux, ~/Library/Application Support/mem on macOS, %LOCALAPPDATA%\\mem on Windows)")
	pf.StringVar(&app.projectFlag, "project", "", "project key (env MEM_PROJECT; default: resolved from the working directory)")
	pf.BoolVar(&app.JSON, "json", false, "print JSON")

	all := commands()
	own := len(all)
	for _, c := range fullOnly {
		all = append(all, Command{c.name, func(a *App) *cobra.Command { return handoffCmd(a, c.name, c.short) }})
	}
	for _, f := range full {
		i := slices.IndexFunc(all, func(c Command) bool { return c.Name == f.Name })
		if i < own {
			panic("cli: " + f.Name + " is not among the commands mem hands over (fullOnly)")
		}
		all[i] = f
	}
	if len(full) > 0 && len(full) != len(fullOnly) {
		panic("cli: mem-full must hold every command of fullOnly")
	}
	name := commandOf(args)
	if i := slices.IndexFunc(all, func(c Command) bool { return c.Name == name }); name != "" && i >= 0 {
		root.CompletionOptions.DisableDefaultCmd = true
		all = all[i : i+1]
	}
	for _, c := range all {
		root.AddCommand(c.New(app))
	}
	if len(all) > 1 { // the whole tree: help or completion
		addCompletions(app, root)
	}
	wrapArgs(root)
	return root
}

// commandOf is the command a command line runs when it is plain: mem's
// global flags, then a command name. It is "" when cobra has more to decide
// (no command, help, completion, another flag first).
func commandOf(args []string) string {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--json", strings.HasPrefix(a, "--db="), strings.HasPrefix(a, "--project="):
		case a == "--db", a == "--project":
			i++
		case a == "help", strings.HasPrefix(a, "-"), strings.HasPrefix(a, "__"), a == "completion":
			return ""
		default:
			return a
		}
	}
	return ""
}

// wrapArgs makes every positional-argument error a usage error (exit 2).
func wrapArgs(c *cobra.Command) {
	if c.Args != nil {
		args := c.Args
		c.Args = func(cmd *cobra.Command, a []string) error {
			if err := args(cmd, a); err != nil {
				return UsageErr(err)
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		wrapArgs(sub)
	}
}

// load reads the configuration once the flags are parsed.
func (a *App) load(cmd *cobra.Command) error {
	flags := map[string]string{}
	if cmd.Flags().Changed("db") {
		flags["db"] = a.dbFlag
	}
	if cmd.Flags().Changed("project") {
		flags["project"] = a.projectFlag
	}
	load := config.Load
	if cmd.Name() == "set" && cmd.Parent() != nil && cmd.Parent().Name() == "remote" {
		load = config.LoadForWrite // it makes the file
	}
	cfg, err := load(a.Getenv, flags)
	if err != nil {
		return err
	}
	a.cfg = cfg
	return nil
}

// Config returns the effective configuration.
func (a *App) Config() *config.Config { return a.cfg }

// Engine returns what runs mem's use cases over the configuration, once it
// is loaded.
func (a *App) Engine() *remember.Engine {
	if a.engine == nil {
		e, err := remember.New(a.cfg, a.Now)
		if err != nil {
			panic("cli: " + err.Error()) // a command ran before its configuration was loaded
		}
		e.SetAgentFiles(agentEnv(a))
		e.SetLog(func(format string, args ...any) { fmt.Fprintf(a.Err, "mem: %s\n", fmt.Sprintf(format, args...)) })
		a.engine = e
	}
	return a.engine
}

// ReadStore opens the database on first use, for a command that only
// reads: it writes nothing, not even the hook events spooled while the
// database was busy (the next hook or writing command applies those).
func (a *App) ReadStore(ctx context.Context) (*store.DB, error) {
	if a.db != nil {
		return a.db, nil
	}
	db, err := store.Open(ctx, a.cfg.Settings.DB, store.Options{BusyTimeoutMillis: cliBusyMillis, Wait: cliWait, Connector: a.connector})
	if err != nil {
		return nil, dbError(a.cfg.Settings.DB, err)
	}
	a.db = db
	makeFoldersPrivate(a, db.Path())
	return db, nil
}

// A command's statement waits cliBusyMillis for another writer; its writes
// retry, with a random pause, for cliWait before failing with "database is
// locked".
const (
	cliBusyMillis = 250
	cliWait       = 60 * time.Second
)

// WriteStore opens the database for a command that writes: the hook events
// spooled while the database was busy are applied first, waiting for the
// database if need be, so they keep their order before what it writes.
func (a *App) WriteStore(ctx context.Context) (*store.DB, error) {
	db, err := a.ReadStore(ctx)
	if err != nil {
		return nil, err
	}
	hook.ApplySpool(ctx, a.cfg, a.hookEnv(nil), db)
	return db, nil
}

// inSession opens the database and runs fn in one write transaction in
// which the session exists, creating it in the current project when it does
// not.
func (a *App) inSession(ctx context.Context, sessionID string, fn func(tx *store.DB) error) error {
	id, err := a.Project()
	if err != nil {
		return err
	}
	db, err := a.WriteStore(ctx)
	if err != nil {
		return err
	}
	wd, _ := a.Getwd()
	return remember.InSession(ctx, db, memory.Session{ID: sessionID, Project: id.Key, Cwd: wd, StartedAt: a.Now()}, fn)
}

// Project resolves the current project: --project, MEM_PROJECT, then the
// working directory's repository.
func (a *App) Project() (project.Identity, error) {
	return a.ProjectOf("")
}

// ProjectOf resolves the project of dir (the working directory when empty).
func (a *App) ProjectOf(dir string) (project.Identity, error) {
	if dir == "" {
		wd, err := a.Getwd()
		if err != nil {
			return project.Identity{}, fmt.Errorf("finding the working directory: %w", err)
		}
		dir = wd
	}
	override := a.cfg.Settings.Project
	if termsafe.HasControl(override) {
		return project.Identity{}, UsageErr(memory.ValidateKey("--project", "project key", override))
	}
	return project.Resolve(dir, override)
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\r", " ")
	return strings.ReplaceAll(s, "\n", " ")
}

// dbError names the --db setting in errors about a file that cannot be used.
func dbError(path string, err error) error {
	switch {
	case errors.Is(err, store.ErrIsDirectory), errors.Is(err, store.ErrNotDatabase):
		if fi, serr := os.Stat(path); serr == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
			return unusablePath("--db", "a SQLite database file or a new file name", path, "it is "+fsafe.Kind(fi.Mode()), err)
		}
		return Invalid("--db", "a SQLite database file or a new file name", path+": "+RootCause(err))
	case errors.Is(err, store.ErrNewerSchema):
		return UsageErr(fmt.Errorf("--db: %w; upgrade mem to use it", err))
	}
	return err
}

// RootCause is the innermost error's text: what a person can act on.
func RootCause(err error) string {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err.Error()
		}
		err = u
	}
}
