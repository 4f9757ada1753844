package cli

import (
	"context"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/store"
)

// Shell completion of the values mem knows: projects (--project), session
// ids (--session, mem session show) and observation types (--type). Values
// from the database are read from an existing file without migrating it;
// with no database there is nothing to offer.

// completionLimit bounds the session ids offered.
const completionLimit = 200

// addCompletions registers the value completions on the whole tree under
// root. Cobra calls them from its hidden __complete command, which runs no
// PersistentPreRunE: they read the configuration themselves.
func addCompletions(app *App, root *cobra.Command) {
	_ = root.RegisterFlagCompletionFunc("project", func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		return completeFromDB(cmd, app, func(ctx context.Context, db *store.DB, _ string) ([]string, error) {
			ps, err := db.Projects(ctx)
			out := make([]string, 0, len(ps))
			for _, p := range ps {
				out = append(out, p.Project)
			}
			return out, err
		})
	})
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup("session") != nil {
			_ = c.RegisterFlagCompletionFunc("session", sessionCompletion(app))
		}
		if c.Flags().Lookup("type") != nil {
			_ = c.RegisterFlagCompletionFunc("type", typeCompletion)
		}
		if c.Name() == "show" && c.Parent() != nil && c.Parent().Name() == "session" {
			c.ValidArgsFunction = func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
				if len(args) > 0 {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				return sessionCompletion(app)(cmd, args, prefix)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// sessionCompletion offers the current project's session ids, most recently
// active first.
func sessionCompletion(app *App) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		return completeFromDB(cmd, app, func(ctx context.Context, db *store.DB, project string) ([]string, error) {
			ss, err := db.ListSessions(ctx, store.SessionFilter{Project: project, Limit: completionLimit})
			out := make([]string, 0, len(ss))
			for _, s := range ss {
				out = append(out, s.ID)
			}
			return out, err
		})
	}
}

// typeCompletion offers the observation types; after a comma (search takes
// a list) the types are offered after what is already typed.
func typeCompletion(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
	done := ""
	if i := strings.LastIndex(prefix, ","); i >= 0 {
		done = prefix[:i+1]
	}
	var out []string
	for _, t := range memory.Types() {
		out = append(out, done+string(t))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeFromDB runs list over the configured database, when it exists,
// for the project the command line names (or the working directory's).
func completeFromDB(cmd *cobra.Command, app *App, list func(context.Context, *store.DB, string) ([]string, error)) ([]string, cobra.ShellCompDirective) {
	const none = cobra.ShellCompDirectiveNoFileComp
	if app.cfg == nil {
		if err := app.load(cmd); err != nil {
			return nil, none
		}
	}
	if fi, err := os.Stat(app.cfg.Settings.DB); err != nil || !fi.Mode().IsRegular() {
		return nil, none
	}
	project := ""
	if id, err := app.Project(); err == nil {
		project = id.Key
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	db, err := store.Open(ctx, app.cfg.Settings.DB, store.Options{BusyTimeoutMillis: cliBusyMillis, NoMigrate: true})
	if err != nil {
		return nil, none
	}
	defer db.Close()
	out, err := list(ctx, db, project)
	if err != nil {
		return nil, none
	}
	return out, none
}
