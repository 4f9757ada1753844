package cli

import (
	"context"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/agent"
	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/hook"
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

// IsHook reports whether args (without the program's name) call mem hook.
func IsHook(args []string) bool { return hookCall(args) >= 0 }

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
	log, cfg, err := hookLogger(app, name, flags)
	defer func() {
		if p := recover(); p != nil {
			log.Printf(hook.Event{Agent: name}, "panic: %v", p)
		}
	}()
	if err != nil {
		log.Printf(hook.Event{Agent: name}, "configuration: %v (hook disabled until it is fixed)", err)
		return
	}
	app.cfg = cfg
	app.Engine().SetLog(func(format string, args ...any) { log.Printf(hook.Event{Agent: name}, format, args...) })
	hook.Main(ctx, cfg, app.hookEnv(func(ev hook.Event) {
		if err := syncAfterSession(app, cfg, ev); err != nil {
			log.Printf(ev, "starting the background sync: %v", err)
		}
	}), log, name, started)
}

// hookEnv is what the hook package works with, from the App once its
// configuration is loaded; replied is called once a hook's reply is out.
func (a *App) hookEnv(replied func(hook.Event)) hook.Env {
	return hook.Env{In: a.In, Out: a.Out, Getenv: a.Getenv, Getwd: a.Getwd, Now: a.Now, Memory: a.Engine(),
		Switches: SwitchSettings(a.cfg, a.Getenv), Connector: a.connector, Replied: replied}
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
