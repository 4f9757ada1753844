package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/install"
	"github.com/memhq/mem/internal/spool"
	"github.com/memhq/mem/internal/store"
)

func newDoctorCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check the database: integrity, full-text indexes, migrations, WAL size, spool (exit 1 if unwell)",
		Long: `Check the database: SQLite's integrity check, each full-text index against its table, the
migration state, the WAL size and the hook events spooled beside it; that the database's files
and mem's folders are private to the user (a warning for each one that is not, with the chmod
that makes it so; any other command makes them private); for each agent mem is wired
into or has heard from, where its hooks and MCP server are (user and project scope), whether the
hooks run this mem, and when its newest event was recorded; and, for an agent that
runs hooks only once trusted (Codex), that it trusts mem's hooks as they are now (trusted,
untrusted, or stale: trusted once, changed since); and that the mem-full mem hands mcp, sync
and web over to is there and of the same version. Exit 1 when a check fails.

A check that finds the database held by another process (an import, say) waits for it up to
10 s, then is reported "busy": it was not run, which says nothing of damage, and does not
change the exit code. Run mem doctor again once the other process is done. With no database
file yet, it says so and creates none.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			path := app.cfg.Settings.DB
			trust := append(trustChecks(app), fullCheck(app))
			if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
				// Nothing to check, and nothing to create: hooks and mem init make it.
				healthy := checksOK(trust)
				all := append(agentChecks(app, nil), trust...)
				if app.JSON {
					if err := PrintJSON(app.Out, map[string]any{"db": path, "exists": false, "healthy": healthy, "checks": all}); err != nil {
						return err
					}
				} else {
					fmt.Fprintf(app.Text(), "no database yet at %s: mem init creates it (hooks do at first use)\n", path)
					printChecks(app, all)
				}
				if !healthy {
					return &exitError{code: ExitFailure, msg: setupProblem(trust)}
				}
				return nil
			}
			db, err := store.Open(ctx, path, store.Options{NoMigrate: true, Wait: doctorWait})
			if err != nil {
				return dbError(app.cfg.Settings.DB, err)
			}
			defer db.Close()
			activity, err := db.Agents(ctx)
			if err != nil {
				activity = nil // an older or busy database: the wiring is still told
			}
			checks := append(append(db.Doctor(ctx), spoolCheck(db.Path())), permissionChecks(app, db.Path())...)
			checks = append(append(append(checks, retentionCheck(ctx, app, db)), agentChecks(app, activity)...), trust...)
			healthy := checksOK(checks)
			if app.JSON {
				if err := PrintJSON(app.Out, map[string]any{"db": db.Path(), "healthy": healthy, "checks": checks}); err != nil {
					return err
				}
			} else {
				printChecks(app, checks)
			}
			if !checksOK(checks[:len(checks)-len(trust)]) {
				return &exitError{code: ExitFailure, msg: "the database at " + db.Path() + " is not healthy"}
			}
			if !healthy {
				return &exitError{code: ExitFailure, msg: setupProblem(trust)}
			}
			return nil
		},
	}
}

// fullCheck finds the mem-full that mem hands mcp, sync and web over to,
// and checks that it is of this mem's version, schema and commit (when both
// know theirs): a mem-full left from another build would migrate or serve
// the database differently.
func fullCheck(app *App) store.Check {
	c := store.Check{Name: FullName}
	ctx, cancel := context.WithTimeout(context.Background(), fullCheckWait)
	defer cancel()
	cmd, err := app.fullJob(ctx, "--json", "version")
	if err != nil {
		c.Detail = err.Error()
		return c
	}
	var got struct {
		Version string `json:"version"`
		Schema  int64  `json:"schema_version"`
		Commit  string `json:"commit"`
	}
	out, err := cmd.Output()
	if err == nil {
		err = json.Unmarshal(out, &got)
	}
	mine := commit()
	switch {
	case err != nil:
		c.Detail = fmt.Sprintf("%s --json version: %v", cmd.Path, err)
	case got.Version != Version || got.Schema != store.SchemaVersion() || got.Commit != mine && got.Commit != "" && mine != "":
		c.Detail = fmt.Sprintf("%s is %s (schema %d, commit %.12s), this mem %s (schema %d, commit %.12s): install the two again, together",
			cmd.Path, got.Version, got.Schema, got.Commit, Version, store.SchemaVersion(), mine)
	default:
		c.OK, c.Detail = true, cmd.Path+" (mcp, sync, web)"
	}
	return c
}

// fullCheckWait is how long doctor waits for mem-full to say its version.
const fullCheckWait = 10 * time.Second

// setupProblem says which of the set-up checks failed, for doctor's exit
// message.
func setupProblem(checks []store.Check) string {
	var problems []string
	for _, c := range checks {
		if c.OK {
			continue
		}
		if c.Name == FullName {
			problems = append(problems, "mem mcp, sync and web will not run: "+c.Detail)
		} else if !slices.Contains(problems, hooksWontRun) {
			problems = append(problems, hooksWontRun)
		}
	}
	return strings.Join(problems, "; ")
}

// hooksWontRun is doctor's message when an agent does not trust mem's hooks.
const hooksWontRun = "an agent will not run mem's hooks"

// checksOK reports whether every check passed.
func checksOK(checks []store.Check) bool {
	for _, c := range checks {
		if !c.OK {
			return false
		}
	}
	return true
}

func printChecks(app *App, checks []store.Check) {
	for _, c := range checks {
		mark := "ok  "
		switch {
		case !c.OK:
			mark = "FAIL"
		case c.Busy:
			mark = "busy"
		case c.Warn:
			mark = "warn"
		}
		fmt.Fprintf(app.Text(), "%s  %-22s %s\n", mark, c.Name, c.Detail)
	}
}

// trustChecks checks, for each agent that runs a user's hooks only once
// they are trusted (Codex) and has mem's hooks in the user's settings,
// that the trust it holds is for those hooks as they are now.
func trustChecks(app *App) []store.Check {
	places, err := installPlaces(app, install.ScopeUser)
	if err != nil {
		return nil
	}
	var checks []store.Check
	for _, a := range install.All() {
		t := install.TrustFor(a.Name, install.ScopeUser)
		if t == nil {
			continue
		}
		name := a.Name + " hook trust"
		path := a.Settings.User(places)
		settings, err := install.Read(path, "")
		if err != nil || settings == nil {
			continue // no hooks of mem's there to check
		}
		source, err := t.Source(places)
		if err != nil {
			checks = append(checks, store.Check{Name: name, Detail: err.Error()})
			continue
		}
		conf, err := install.Read(t.File(places), "")
		if err == nil {
			var hooks []install.HookTrust
			if hooks, err = install.HooksTrust(a.Name, source, settings, conf, ""); err == nil && len(hooks) > 0 {
				checks = append(checks, trustCheck(name, a.Name, t.File(places), hooks))
			}
		}
		if err != nil {
			checks = append(checks, store.Check{Name: name, Detail: fmt.Sprintf("reading %s: %v", t.File(places), err)})
		}
	}
	return checks
}

// trustCheck sums up the trust an agent holds in mem's hooks.
func trustCheck(name, agent, file string, hooks []install.HookTrust) store.Check {
	var bad, off []string
	for _, h := range hooks {
		if st := h.Status(); st != "trusted" {
			bad = append(bad, st+" "+h.Key)
		} else if !h.Enabled {
			off = append(off, h.Key)
		}
	}
	if len(bad) > 0 {
		return store.Check{Name: name, Detail: fmt.Sprintf("%d of mem's %d hooks will not run: %s; run mem install %s again (it records the trust in %s), or trust them with /hooks in %s",
			len(bad), len(hooks), strings.Join(bad, ", "), agent, file, agent)}
	}
	detail := fmt.Sprintf("mem's %d hooks trusted in %s", len(hooks), file)
	if len(off) > 0 {
		detail += fmt.Sprintf("; %d turned off in /hooks: %s", len(off), strings.Join(off, ", "))
	}
	return store.Check{Name: name, OK: true, Detail: detail}
}

// doctorWait is how long doctor's checks wait for another process's write.
const doctorWait = 10 * time.Second

// spoolCheck reports the hook events waiting in the spool beside the
// database (applied by the next command that writes) and those set aside
// because they could not be applied (hook.log says why).
func spoolCheck(dbPath string) store.Check {
	sp := spool.Beside(dbPath)
	waiting, failed, err := sp.Len()
	if err != nil {
		return store.Check{Name: "spool", OK: false, Detail: err.Error()}
	}
	detail := fmt.Sprintf("%d hook events waiting", waiting)
	if failed > 0 {
		detail += fmt.Sprintf(", %d set aside in %s (see hook.log)", failed, sp.Path())
	}
	return store.Check{Name: "spool", OK: true, Detail: detail}
}
