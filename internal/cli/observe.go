package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/cite"
	"github.com/memhq/mem/internal/guard"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/privacy"
	"github.com/memhq/mem/internal/remember"
	"github.com/memhq/mem/internal/store"
)

// observeInput is an observation as given on the command line or as the
// JSON object of --input.
type observeInput struct {
	Type          string   `json:"type"`
	Title         string   `json:"title"`
	Subtitle      string   `json:"subtitle"`
	Narrative     string   `json:"narrative"`
	Facts         []string `json:"facts"`
	Concepts      []string `json:"concepts"`
	FilesRead     []string `json:"files_read"`
	FilesModified []string `json:"files_modified"`
	ToolName      string   `json:"tool_name"`
	PromptNumber  int      `json:"prompt_number"`
	AgentType     string   `json:"agent_type"`
	Supersedes    int64    `json:"supersedes"`
}

type observeOptions struct {
	Session string
	Scope   string
	Input   string // "-" for stdin, or a file
	Fields  observeInput
}

func newObserveCmd(app *App) *cobra.Command {
	var o observeOptions
	cmd := &cobra.Command{
		Use:   "observe (--session ID | --scope personal) (--type T --title TEXT [fields] | --input -)",
		Short: "Record an observation: a decision, problem, change or discovery worth remembering",
		Long: `Record an observation in a session (the session is created in the current project if it
does not exist). Give the fields as flags, or one JSON object with the same names on stdin with
--input - (facts, concepts, files_read and files_modified are arrays). Private parts and secrets are
removed before anything is stored. The same content twice in one session is stored once.

--scope personal stores a preference of yours in the personal tier instead (no --session needed):
it is given back at the start of every project's sessions, never shared with a team (mem share,
mem share --git) and never exported with a project.

Types: ` + memory.TypeList() + `.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runObserve(cmd.Context(), app, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Session, "session", "", "session id (required unless --scope personal)")
	f.StringVar(&o.Scope, "scope", "project", "project, or personal: a preference given back in every project")
	f.StringVar(&o.Input, "input", "", "read the observation as one JSON object from a file, or - for stdin")
	f.StringVar(&o.Fields.Type, "type", "", "observation type: "+memory.TypeList())
	f.StringVar(&o.Fields.Title, "title", "", "one-line title")
	f.StringVar(&o.Fields.Subtitle, "subtitle", "", "a second line")
	f.StringVar(&o.Fields.Narrative, "narrative", "", "what happened and why")
	f.StringArrayVar(&o.Fields.Facts, "fact", nil, "a fact (repeatable)")
	f.StringArrayVar(&o.Fields.Concepts, "concept", nil, "a concept or tag (repeatable)")
	f.StringArrayVar(&o.Fields.FilesRead, "file-read", nil, "a file read (repeatable)")
	f.StringArrayVar(&o.Fields.FilesModified, "file-modified", nil, "a file modified (repeatable)")
	f.StringVar(&o.Fields.ToolName, "tool", "", "the tool that produced it")
	f.IntVar(&o.Fields.PromptNumber, "prompt-number", 0, "the prompt it belongs to")
	f.StringVar(&o.Fields.AgentType, "agent-type", "", "agent type: build, plan, ...")
	f.Int64Var(&o.Fields.Supersedes, "supersedes", 0, "the id of the observation this one corrects: it is retired, never injected again")
	return cmd
}

func runObserve(ctx context.Context, app *App, o observeOptions) error {
	scope, err := memory.ParseScope("--scope", o.Scope)
	if err != nil {
		return UsageErr(err)
	}
	if scope == memory.ScopePersonal {
		if o.Session != "" {
			return Invalid("--session", "no session with --scope personal (the personal tier has its own)", o.Session)
		}
		o.Session = memory.PersonalSession(app.Now()).ID
	} else if err := SessionArg(&o.Session); err != nil {
		return err
	}
	in := o.Fields
	if o.Input != "" {
		var err error
		if in, err = readObserveInput(app, o.Input); err != nil {
			return err
		}
	}
	obs, err := in.observation(o.Session)
	if err != nil {
		return UsageErr(err)
	}
	guard.MarkObservation(&obs)
	obs.CreatedAt = app.Now()
	if id, err := app.Project(); err == nil {
		obs.Citations = cite.Take(id.Root, cite.Files(&obs, ""))
	}
	var added store.Added
	add := func(tx *store.DB) (err error) {
		added, err = tx.AddObservation(ctx, obs)
		return err
	}
	if scope == memory.ScopePersonal {
		var db *store.DB
		if db, err = app.WriteStore(ctx); err == nil {
			err = remember.InSession(ctx, db, memory.PersonalSession(app.Now()), add)
		}
	} else {
		err = app.inSession(ctx, o.Session, add)
	}
	if err != nil {
		return err
	}
	return printAdded(app, added)
}

func printAdded(app *App, a store.Added) error {
	if app.JSON {
		return PrintJSON(app.Out, a)
	}
	if a.Duplicate {
		fmt.Fprintf(app.Out, "#%d (already stored)\n", a.ID)
	} else {
		fmt.Fprintf(app.Out, "#%d\n", a.ID)
	}
	return nil
}

func readObserveInput(app *App, src string) (observeInput, error) {
	var r io.Reader = app.In
	if src != "-" {
		f, err := openFileArg("--input", src)
		if err != nil {
			return observeInput{}, err
		}
		defer f.Close()
		r = f
	}
	dec := json.NewDecoder(io.LimitReader(r, 16<<20))
	dec.DisallowUnknownFields()
	var in observeInput
	if err := dec.Decode(&in); err != nil {
		return observeInput{}, Invalid("--input", "one JSON object with fields "+observeFieldList, jsonMessage(err))
	}
	if dec.More() {
		return observeInput{}, Invalid("--input", "exactly one JSON object", "more than one value")
	}
	return in, nil
}

const observeFieldList = "type, title, subtitle, narrative, facts, concepts, files_read, files_modified, tool_name, prompt_number, agent_type, supersedes"

// observation validates the input and passes every text through the privacy filter.
func (in observeInput) observation(session string) (memory.Observation, error) {
	t, err := memory.ParseType(in.Type)
	if err != nil {
		return memory.Observation{}, err
	}
	if in.Supersedes < 0 {
		return memory.Observation{}, memory.Invalid("--supersedes", "the id of an observation of this project, such as 12", fmt.Sprint(in.Supersedes))
	}
	return privacy.CleanObservation(memory.Observation{Supersedes: in.Supersedes,
		SessionID: session, Type: t,
		Title: in.Title, Subtitle: in.Subtitle, Narrative: in.Narrative,
		Facts: in.Facts, Concepts: in.Concepts,
		FilesRead: in.FilesRead, FilesModified: in.FilesModified,
		ToolName: in.ToolName, PromptNumber: in.PromptNumber, AgentType: in.AgentType,
		Provenance: memory.Provenance{Origin: memory.OriginPerson, Agent: "cli", Event: "observe"},
	})
}

// jsonMessage turns a decoding error into a short phrase.
func jsonMessage(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return "empty input"
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d: %s", se.Offset, se.Error())
	case errors.As(err, &te) && te.Field == "":
		return fmt.Sprintf("a JSON %s instead of an object", te.Value)
	case errors.As(err, &te):
		return fmt.Sprintf("field %s has a JSON %s", te.Field, te.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
