package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/retain"
	"github.com/memhq/mem/internal/store"
)

func newStatsCmd(app *App) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Count sessions, observations, summaries and prompts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			project := ""
			if !all {
				id, err := app.Project()
				if err != nil {
					return err
				}
				project = id.Key
			}
			db, err := app.ReadStore(ctx)
			if err != nil {
				return err
			}
			st, err := db.Stats(ctx, project)
			if err != nil {
				return err
			}
			ret, err := retain.Run(ctx, db, retentionPolicy(app.Config()), app.Now(), true)
			if err != nil {
				return err
			}
			if app.JSON {
				return PrintJSON(app.Out, struct {
					store.Stats
					Retention retain.Report `json:"retention"`
				}{st, ret})
			}
			w := app.Text()
			fmt.Fprintf(w, "database: %s (%d bytes, WAL %d bytes)\n", st.Path, st.SizeBytes, st.WALBytes)
			if project != "" {
				fmt.Fprintf(w, "project %s: ", project)
			}
			fmt.Fprintf(w, "%d sessions, %d observations, %d summaries, %d prompts\n",
				st.Sessions, st.Observations, st.Summaries, st.Prompts)
			if project != "" && st.Sessions == 0 {
				fmt.Fprintln(w, "nothing recorded for this project yet (mem stats --all-projects counts every project)")
			}
			for _, p := range st.Projects {
				fmt.Fprintf(w, "  %s: %d sessions, %d observations, %d summaries, %d prompts\n",
					p.Project, p.Sessions, p.Observations, p.Summaries, p.Prompts)
			}
			fmt.Fprintln(w, retentionLine(ret)+" (all projects; mem summarize --pending, nightly)")
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all-projects", false, "count every project (default: the current one)")
	return cmd
}
