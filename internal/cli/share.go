package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/memory"
)

func newShareCmd(app *App, unshare bool) *cobra.Command {
	use, short := "share", "Share the current project (or --project) with the team's cluster on mem sync"
	if unshare {
		use, short = "unshare", "Stop sharing the current project (or --project); what the cluster has stays there"
	}
	return &cobra.Command{
		Use:   use,
		Short: short,
		Long: short + `.

Sharing is opt-in per project, so a private project never leaves the machine. A shared project's
sessions, observations and summaries (all of them, also those recorded before it was shared) go to
the cluster on mem sync, and what others pushed for it comes back; its prompts never leave the
machine. Unsharing stops both ways; sharing again pushes and pulls the project whole (idempotent).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runShare(cmd.Context(), app, unshare)
		},
	}
}

func runShare(ctx context.Context, app *App, unshare bool) error {
	id, err := app.Project()
	if err != nil {
		return err
	}
	if !unshare && id.Key == memory.PersonalProject {
		return Invalid("--project", "a project (the personal tier is never shared)", id.Key)
	}
	db, err := app.WriteStore(ctx)
	if err != nil {
		return err
	}
	var changed bool
	if unshare {
		changed, err = db.Unshare(ctx, id.Key)
	} else {
		changed, err = db.Share(ctx, id.Key, app.Now())
	}
	if err != nil {
		return err
	}
	if app.JSON {
		return PrintJSON(app.Out, map[string]any{"project": id.Key, "shared": !unshare, "changed": changed})
	}
	w := app.Text()
	switch {
	case unshare && changed:
		fmt.Fprintf(w, "project %s is no longer shared\n", id.Key)
	case unshare:
		fmt.Fprintf(w, "project %s was not shared\n", id.Key)
	case changed:
		fmt.Fprintf(w, "project %s is shared: mem sync sends its sessions, observations and summaries (never its prompts)\n", id.Key)
	default:
		fmt.Fprintf(w, "project %s was already shared\n", id.Key)
	}
	return nil
}
