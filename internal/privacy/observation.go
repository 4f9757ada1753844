package privacy

import (
	"strings"

	"github.com/memhq/mem/internal/memory"
)

// CleanObservation prepares an observation given by a user or an agent for
// storage: every text field (the free text, the file lists, the tool name and
// agent type) passes through Filter, then the observation is normalised and
// validated. A title that was entirely private is rejected rather than stored
// empty. Every entry point that accepts observations (the CLI, the MCP server,
// import) goes through here, so they accept the same input.
func CleanObservation(o memory.Observation) (memory.Observation, error) {
	title := o.Title
	o.Title = Filter(o.Title)
	o.Subtitle = Filter(o.Subtitle)
	o.Narrative = Filter(o.Narrative)
	o.Facts = FilterAll(o.Facts)
	o.Concepts = FilterAll(o.Concepts)
	o.FilesRead = FilterAll(o.FilesRead)
	o.FilesModified = FilterAll(o.FilesModified)
	o.ToolName = Filter(o.ToolName)
	o.AgentType = Filter(o.AgentType)
	if strings.TrimSpace(title) != "" && strings.TrimSpace(o.Title) == "" {
		return o, memory.Invalid("title", "text that is not entirely private", "")
	}
	o.Normalize()
	return o, o.Validate()
}

// FilterAll filters each text of a list; nil stays nil.
func FilterAll(in []string) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = Filter(s)
	}
	return out
}
