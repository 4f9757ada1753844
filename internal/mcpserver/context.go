package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/privacy"
	"github.com/memhq/mem/internal/recall"
	"github.com/memhq/mem/internal/remember"
)

// ContextInput is the argument of recent_context.
type ContextInput struct {
	Budget int    `json:"budget,omitempty" jsonschema:"token budget of the whole block (default: the configured inject.budget)"`
	Prompt string `json:"prompt,omitempty" jsonschema:"words of the task at hand; observations that contain them rank higher"`
}

// ContextOutput is the result of recent_context.
type ContextOutput struct {
	Text    string `json:"text" jsonschema:"the memory block, as mem inject prints it; empty when the project has no memory yet"`
	Project string `json:"project"`
	Tokens  int    `json:"tokens" jsonschema:"estimated tokens of text"`
	Budget  int    `json:"budget"`
	Empty   bool   `json:"empty" jsonschema:"true when the project has no memory yet"`
}

func (s *Server) addContextTools() {
	addTool(s, &mcp.Tool{
		Name:  "recent_context",
		Title: "Recent memory context",
		Description: `Return the project's memory block for a token budget: recent session summaries and the most relevant observations as a compact index, the same block injected at session start (mem inject).
Use it to catch up at the start of a task or after losing context; then search, timeline and get_observations for details. Give prompt to rank observations about the task at hand higher.`,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
	}, s.recentContext)
}

func (s *Server) recentContext(ctx context.Context, _ *mcp.CallToolRequest, in ContextInput) (*mcp.CallToolResult, ContextOutput, error) {
	if in.Budget < 0 || in.Budget > 1_000_000 {
		return nil, ContextOutput{}, memory.Invalid("budget", "a number of tokens from 1 to 1000000", fmt.Sprint(in.Budget))
	}
	res, err := remember.Recall(ctx, s.opts.DB, recall.Request{Project: s.opts.Project, SessionID: s.opts.Session,
		Prompt: in.Prompt, Budget: in.Budget}, s.opts.Recall)
	if err != nil {
		return nil, ContextOutput{}, s.toolError("recent_context", err)
	}
	out := ContextOutput{Text: res.Text, Project: s.opts.Project, Tokens: res.Tokens, Budget: res.Budget, Empty: res.Empty}
	msg := res.Text
	if msg == "" {
		msg = noMemory(s.opts.Project, res.Empty)
	}
	return textResult(msg), out, nil
}

// noMemory says why a recall block is empty.
func noMemory(project string, empty bool) string {
	if empty {
		return fmt.Sprintf("No memory yet for project %s.", project)
	}
	return fmt.Sprintf("Nothing of project %s fits the budget; raise it or use search.", project)
}

// addContextResources registers mem://context/auto and mem://context/session/{id}.
func (s *Server) addContextResources() {
	s.mcp.AddResource(&mcp.Resource{
		Name:        "project-context",
		Title:       "This project's memory",
		URI:         uriAuto,
		MIMEType:    "application/xml",
		Description: "The current project's memory block, as injected at session start (mem inject): recent session summaries and an index of relevant observations.",
	}, s.readAuto)
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "session-context",
		Title:       "A session's memory",
		URITemplate: uriSessionBase + "{id}",
		MIMEType:    "application/xml",
		Description: "The memory block for one session (mem inject --mode compact): its own observations first, then its project's.",
	}, s.readSession)
}

func (s *Server) readAuto(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	res, err := remember.Recall(ctx, s.opts.DB, recall.Request{Project: s.opts.Project, SessionID: s.opts.Session}, s.opts.Recall)
	if err != nil {
		s.opts.Logger.Error("reading resource", "uri", req.Params.URI, "err", err)
		return nil, fmt.Errorf("building the memory block: %w", err)
	}
	return recallResource(req.Params.URI, res), nil
}

func (s *Server) readSession(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	raw, err := unescapeTail(uri, uriSessionBase)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	id, err := privacy.GivenSessionID("id", raw)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	sess, err := s.opts.DB.Session(ctx, id)
	if err != nil {
		if isNotFound(err) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return nil, fmt.Errorf("reading session %s: %w", id, err)
	}
	res, err := remember.Recall(ctx, s.opts.DB, recall.Request{Project: sess.Project, SessionID: id,
		Mode: recall.ModeCompact, Budget: s.opts.Recall.Budget}, s.opts.Recall)
	if err != nil {
		s.opts.Logger.Error("reading resource", "uri", uri, "err", err)
		return nil, fmt.Errorf("building the memory block of session %s: %w", id, err)
	}
	return recallResource(uri, res), nil
}

// recallResource wraps a recall block; an empty one says why in plain text.
func recallResource(uri string, res recall.Result) *mcp.ReadResourceResult {
	if res.Text == "" {
		return textResource(uri, noMemory(res.Project, res.Empty))
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/xml", Text: res.Text}}}
}
