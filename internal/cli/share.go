package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/fsafe"
	"github.com/memhq/mem/internal/interchange"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/privacy"
	"github.com/memhq/mem/internal/switches"
)

func newShareCmd(app *App, unshare bool) *cobra.Command {
	use, short := "share", "Share the current project (or --project) with the team's cluster on mem sync"
	if unshare {
		use, short = "unshare", "Stop sharing the current project (or --project); what the cluster has stays there"
	}
	var git bool
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Long: short + `.

Sharing is opt-in per project, so a private project never leaves the machine. A shared project's
sessions, observations and summaries (all of them, also those recorded before it was shared) go to
the cluster on mem sync, and what others pushed for it comes back; its prompts never leave the
machine. Unsharing stops both ways; sharing again pushes and pulls the project whole (idempotent).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if git {
				return runShareGit(cmd.Context(), app, args)
			}
			return runShare(cmd.Context(), app, unshare)
		},
	}
	if !unshare {
		cmd.Use = "share [--git [PATH]]"
		cmd.Long += `

--git writes the project's durable memory to a file in its repository instead (PATH, default
` + interchange.RepoFile + ` at the root; a PATH of your own is recorded as "share = PATH" in the
project's .mem, which you commit along: every member's mem reads that file at session start): its
decisions, warnings, patterns and open problems, one JSON object a line, oldest first. Never prompts,
never text the instruction check flagged or that came from outside the project, never what an
agent's own memory holds (private to you), and what was forgotten here becomes a tombstone line
others' mem forgets it by. Writing the file is this explicit step; commit it to share. With
` + "`" + interchange.RepoFile + ` merge=union` + "`" + ` in .gitattributes, concurrent additions merge without conflicts.`
		cmd.Args = func(cmd *cobra.Command, args []string) error {
			if !git && len(args) > 0 {
				return Invalid("PATH", "no argument without --git", args[0])
			}
			return cobra.MaximumNArgs(1)(cmd, args)
		}
		cmd.Flags().BoolVar(&git, "git", false, "write the durable memory to a file in the repository (PATH, default "+interchange.RepoFile+")")
	}
	return cmd
}

// runShareGit writes the project's durable memory to its repository file.
func runShareGit(ctx context.Context, app *App, args []string) error {
	id, err := app.Project()
	if err != nil {
		return err
	}
	if id.Key == memory.PersonalProject {
		return Invalid("--project", "a project (the personal tier is never shared)", id.Key)
	}
	if _, err := os.Stat(filepath.Join(id.Root, ".git")); err != nil {
		return Invalid("--git", "a project in a git work tree", id.Root)
	}
	// The team's choice of file is recorded in .mem.
	dot, err := switches.ReadFile(id.Root)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return UsageErr(err)
	}
	path, rel, err := shareTarget(id.Root, dot.Share, args)
	if err != nil {
		return err
	}
	db, err := app.ReadStore(ctx)
	if err != nil {
		return err
	}
	var existing []interchange.RepoLine
	if data, err := os.ReadFile(path); err == nil {
		existing = interchange.ReadRepository(data)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	obs, err := durableObservations(ctx, db, id.Key, time.Time{})
	if err != nil {
		return err
	}
	forgotten, err := db.ForgottenObservations(ctx, id.Key)
	if err != nil {
		return err
	}
	out, kept, tombs := repoLines(existing, obs, forgotten)
	data, err := interchange.WriteRepository(out)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := fsafe.Write(path, 0o644, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	// Every member's mem reads the path .mem records: a path of the team's
	// own goes there, the default leaves no line.
	if rel == interchange.RepoFile {
		rel = ""
	}
	memFile := ""
	if rel != dot.Share {
		if memFile, err = switches.WriteShare(id.Root, rel); err != nil {
			return err
		}
	}
	if app.JSON {
		return PrintJSON(app.Out, map[string]any{"project": id.Key, "file": path, "records": kept, "forgotten": tombs, "recorded_in": memFile})
	}
	switch {
	case memFile != "" && rel != "":
		fmt.Fprintf(app.Text(), "wrote %d records and %d forgotten to %s, and its path to %s: commit both to share them\n", kept, tombs, path, memFile)
		return nil
	case memFile != "":
		fmt.Fprintf(app.Text(), "wrote %d records and %d forgotten to %s, and took the share line out of %s: commit both to share them\n", kept, tombs, path, memFile)
		return nil
	}
	fmt.Fprintf(app.Text(), "wrote %d records and %d forgotten to %s: commit it to share them\n", kept, tombs, path)
	return nil
}

// shareTarget returns the repository file mem share --git writes in the
// work tree at root (the PATH argument, else the one .mem records, else
// the default) and its path relative to root as .mem records it. A path
// that leaves the work tree, lexically or through a link on its way, is
// bad input.
func shareTarget(root, recorded string, args []string) (path, rel string, err error) {
	path = interchange.RepoFile
	if recorded != "" {
		path = filepath.FromSlash(recorded)
	}
	if len(args) == 1 {
		path = args[0]
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	rel, err = filepath.Rel(root, path)
	if err == nil {
		rel, err = switches.SharePath(rel)
	}
	// A folder on the way may be a link the repository committed: the
	// path must stay in the work tree once links are resolved.
	if err != nil || !fsafe.StaysIn(root, path) {
		return "", "", Invalid("PATH", "a file inside the project's work tree", path)
	}
	if _, err := fsafe.CheckTarget(path); err != nil {
		return "", "", UsageErr(fmt.Errorf("PATH: %w", err))
	}
	return path, rel, nil
}

// repoLines merges the project's durable observations into the lines of
// the repository file as it is: each reviewed, trusted one of this
// project's own as a line (privacy-filtered), a forget from anyone winning,
// and what was forgotten here a tombstone. It returns the lines and how
// many are records and tombstones.
func repoLines(existing []interchange.RepoLine, obs []memory.Observation, forgotten map[string]time.Time) (out []interchange.RepoLine, kept, tombs int) {
	lines := map[string]interchange.RepoLine{}
	for _, l := range existing {
		lines[l.UUID] = l
	}
	local := map[string]bool{}
	for _, o := range obs {
		if o.Review.Held() || o.Provenance.Untrusted || o.Provenance.Origin == memory.OriginAgentMemory {
			continue
		}
		local[o.UUID] = true
		if l, ok := lines[o.UUID]; ok && l.Forgotten != nil {
			continue // forgotten by someone: the forget wins
		}
		o.Title, o.Narrative = privacy.Filter(o.Title), privacy.Filter(o.Narrative)
		for i := range o.Facts {
			o.Facts[i] = privacy.Filter(o.Facts[i])
		}
		lines[o.UUID] = interchange.RepoLineOf(o)
	}
	out = make([]interchange.RepoLine, 0, len(lines))
	for u, l := range lines {
		if at, ok := forgotten[u]; ok && !local[u] && l.Forgotten == nil {
			l = l.Tombstone(at)
		}
		if l.Forgotten != nil {
			tombs++
		} else {
			kept++
		}
		out = append(out, l)
	}
	return out, kept, tombs
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
