package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/remember"
	"github.com/memhq/mem/internal/retain"
	"github.com/memhq/mem/internal/store"
)

func newStatsCmd(app *App) *cobra.Command {
	var all bool
	since := "30d"
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Count sessions, observations, summaries and prompts, and what injected memory was worth",
		Long: `Count sessions, observations, summaries and prompts, and what the memory mem injected since
--since was worth: of the entries the start block, the compaction block, prompt-time and
file-touch context gave the agent, how many it later fetched (mem get, search or timeline run by
the agent, or the MCP tools) or a person marked useful in the viewer (helpful), how many were
marked wrong (irrelevant), and the injected tokens of entries never used.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			from, err := parseDate("--since", since, app.Now())
			if err != nil {
				return err
			}
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
			fb, err := remember.Feedback(ctx, db, project, from)
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
					Feedback  memory.Feedback `json:"feedback"`
					Retention retain.Report   `json:"retention"`
				}{st, fb, ret})
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
			fmt.Fprintf(w, "injected since %s: %s\n", fb.Since.Format("2006-01-02"), fb.Total)
			for _, c := range fb.Channels {
				fmt.Fprintf(w, "  %s: %s\n", c.Channel, c)
			}
			fmt.Fprintln(w, retentionLine(ret)+" (all projects; mem summarize --pending, nightly)")
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all-projects", false, "count every project (default: the current one)")
	cmd.Flags().StringVar(&since, "since", since, "what injected memory was worth since: "+dateForms)
	return cmd
}
