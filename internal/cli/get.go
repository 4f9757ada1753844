package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/cite"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/store"
)

func newGetCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "get ID...",
		Short: "Print full records: observations (123, #123), summaries (S12) and prompts (P7)",
		Long: `Print the full records behind ids from the memory index or a search: an observation by its
number (123 or #123), a summary by S and its number (S12), a prompt by P and its number (P7).
An unknown id is an error (exit 2).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runGet(cmd.Context(), app, args)
		},
	}
}

// getResult is one record printed by get, marked by kind.
type getResult struct {
	Kind        string              `json:"kind"`
	Observation *memory.Observation `json:"observation,omitempty"`
	Summary     *memory.Summary     `json:"summary,omitempty"`
	Prompt      *memory.Prompt      `json:"prompt,omitempty"`
	// Chain is an observation's correction chain, oldest first, when it
	// corrects or was corrected by others.
	Chain []int64 `json:"chain,omitempty"`
}

// maxGetIDs bounds one call: full records of more than this are not a
// progressive-disclosure step any agent or person can use.
const maxGetIDs = 1000

func runGet(ctx context.Context, app *App, args []string) error {
	if len(args) > maxGetIDs {
		return Invalid("id", fmt.Sprintf("at most %d ids per call", maxGetIDs), fmt.Sprintf("%d ids", len(args)))
	}
	refs := make([]memory.Ref, 0, len(args))
	var obsIDs []int64
	for _, a := range args {
		r, err := parseRef(a)
		if err != nil {
			return err
		}
		refs = append(refs, r)
		if !r.Summary && !r.Prompt {
			obsIDs = append(obsIDs, r.ID)
		}
	}
	db, err := app.ReadStore(ctx)
	if err != nil {
		return err
	}
	var out []getResult
	err = db.Read(ctx, func(rx *store.DB) error {
		var err error
		out, err = loadRecords(ctx, rx, refs, obsIDs)
		return err
	})
	if err != nil {
		return err
	}
	if app.JSON {
		return PrintJSON(app.Out, out)
	}
	w := app.Text()
	for i, r := range out {
		if i > 0 {
			fmt.Fprintln(w)
		}
		switch {
		case r.Observation != nil:
			writeObservation(w, *r.Observation)
			writeStanding(w, *r.Observation, r.Chain)
		case r.Prompt != nil:
			writePrompt(w, *r.Prompt)
		default:
			writeSummary(w, *r.Summary)
		}
	}
	return nil
}

// loadRecords reads what get prints, with each observation's citations
// checked and its correction chain, from rx (one snapshot).
func loadRecords(ctx context.Context, rx *store.DB, refs []memory.Ref, obsIDs []int64) ([]getResult, error) {
	obs, err := rx.Observations(ctx, obsIDs)
	if err != nil {
		return nil, err
	}
	if err := cite.Annotate(ctx, &cite.Checker{Store: rx}, obs); err != nil {
		return nil, err
	}
	byID := make(map[int64]*memory.Observation, len(obs))
	for i := range obs {
		byID[obs[i].ID] = &obs[i]
	}
	out := make([]getResult, 0, len(refs))
	for _, r := range refs {
		if r.Prompt {
			p, err := rx.Prompt(ctx, r.ID)
			if err != nil {
				return nil, err
			}
			out = append(out, getResult{Kind: memory.KindPrompt, Prompt: &p})
			continue
		}
		if !r.Summary {
			g := getResult{Kind: memory.KindObservation, Observation: byID[r.ID]}
			chain, err := rx.CorrectionChain(ctx, r.ID)
			if err != nil {
				return nil, err
			}
			if len(chain) > 1 {
				g.Chain = chain
			}
			out = append(out, g)
			continue
		}
		s, err := rx.Summary(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, getResult{Kind: memory.KindSummary, Summary: &s})
	}
	return out, nil
}

func writeObservation(w io.Writer, o memory.Observation) {
	fmt.Fprintf(w, "#%d %s%s: %s\n", o.ID, o.Type, heldMark(o.Review), o.Title)
	field(w, "date", Stamp(o.CreatedAt))
	field(w, "session", o.SessionID)
	field(w, "project", o.Project)
	provenanceFields(w, o.Provenance, o.Review)
	field(w, "subtitle", o.Subtitle)
	field(w, "narrative", o.Narrative)
	if len(o.Facts) > 0 {
		fmt.Fprintln(w, "facts:")
		for _, f := range o.Facts {
			fmt.Fprintf(w, "  - %s\n", f)
		}
	}
	listField(w, "concepts", o.Concepts)
	listField(w, "files read", o.FilesRead)
	listField(w, "files modified", o.FilesModified)
	field(w, "tool", o.ToolName)
	field(w, "uuid", o.UUID)
}

// writeStanding says how an observation's cited files stand now and where
// it sits in its correction chain.
func writeStanding(w io.Writer, o memory.Observation, chain []int64) {
	if o.Standing != nil {
		if note := o.Standing.Note(); note != "" {
			field(w, "standing", note)
		}
		for _, f := range o.Standing.Files {
			fmt.Fprintf(w, "  %s: %s\n", f.Path, f.State)
		}
	}
	if o.Merged > 0 {
		field(w, "seen", fmt.Sprintf("%d times (near-duplicates folded into it)", o.Merged+1))
	}
	if o.SupersededBy > 0 {
		field(w, "retired", fmt.Sprintf("corrected by #%d", o.SupersededBy))
	}
	if len(chain) > 1 {
		refs := make([]string, len(chain))
		for i, id := range chain {
			refs[i] = fmt.Sprintf("#%d", id)
		}
		field(w, "corrections", strings.Join(refs, " -> ")+" (the last is current)")
	}
}

func writeSummary(w io.Writer, s memory.Summary) {
	fmt.Fprintf(w, "S%d summary of session %s%s\n", s.ID, s.SessionID, heldMark(s.Review))
	field(w, "date", Stamp(s.CreatedAt))
	field(w, "project", s.Project)
	provenanceFields(w, s.Provenance, s.Review)
	field(w, "generator", s.Generator)
	summaryFields(w, s)
	field(w, "uuid", s.UUID)
}

// heldMark marks the header of a record the instruction check holds back.
func heldMark(r memory.Review) string {
	if r.Held() {
		return " [flagged]"
	}
	return ""
}

// provenanceFields prints where a record came from and what the
// instruction check found in it.
func provenanceFields(w io.Writer, p memory.Provenance, r memory.Review) {
	field(w, "source", p.Describe())
	if r.Flag != "" {
		state := "held back from the agent (mem review)"
		if r.Released {
			state = "released by a person"
		}
		field(w, "flagged", fmt.Sprintf("%s: %q, %s", r.Flag, r.Span, state))
	}
}

// summaryFields prints what a summary says, section by section.
func summaryFields(w io.Writer, s memory.Summary) {
	field(w, "request", s.Request)
	field(w, "investigated", s.Investigated)
	field(w, "learned", s.Learned)
	field(w, "completed", s.Completed)
	field(w, "next steps", s.NextSteps)
	field(w, "decisions", s.Decisions)
	listField(w, "concepts", s.Concepts)
	listField(w, "files", s.Files)
	field(w, "text", s.Text)
}

func writePrompt(w io.Writer, p memory.Prompt) {
	fmt.Fprintf(w, "P%d prompt %d of session %s\n", p.ID, p.PromptNumber, p.SessionID)
	field(w, "date", Stamp(p.CreatedAt))
	field(w, "project", p.Project)
	field(w, "text", p.Text)
	field(w, "uuid", p.UUID)
}
