package memory

import "strings"

// Provenance says where a record came from. Origin is one of the Origin*
// values (empty for a record written before mem kept provenance); Agent is
// the agent whose tool event or save wrote it (claude-code, codex, ...), or
// the channel a person used (cli, web); Event is the agent's tool event
// (Edit, Bash, WebFetch, ...) or the MCP tool (save_observation); Member is
// the team member a pulled record came from. Untrusted marks text that came
// from outside the user and the project (web pages, other MCP servers, files
// outside the project or in vendored trees, network commands' output): it is
// never given back verbatim as memory.
type Provenance struct {
	Origin    string `json:"origin,omitempty"`
	Agent     string `json:"origin_agent,omitempty"`
	Event     string `json:"origin_event,omitempty"`
	Member    string `json:"origin_member,omitempty"`
	Untrusted bool   `json:"untrusted,omitempty"`
}

// Origins.
const (
	OriginTool        = "tool"         // captured from an agent's tool event
	OriginSave        = "agent-save"   // the agent's own save (MCP save_observation)
	OriginPerson      = "person"       // a person, through the CLI or the viewer
	OriginImport      = "import"       // a file given to mem import
	OriginTeam        = "team"         // pulled from the team's cluster
	OriginRepository  = "repository"   // the project's own files
	OriginAgentMemory = "agent-memory" // an agent's built-in memory
	OriginSummarizer  = "summarizer"   // a summary mem built (extractive or a model)
)

var origins = []string{OriginTool, OriginSave, OriginPerson, OriginImport, OriginTeam,
	OriginRepository, OriginAgentMemory, OriginSummarizer}

// ValidOrigin reports whether o is an origin mem knows, or empty.
func ValidOrigin(o string) bool {
	if o == "" {
		return true
	}
	for _, x := range origins {
		if x == o {
			return true
		}
	}
	return false
}

// OriginList is the accepted origins, for messages.
func OriginList() string { return strings.Join(origins, ", ") }

// Describe says where the record came from in a few words: "tool Bash
// (claude-code)", "agent-save save_observation (codex)", "team alice", or
// "unknown".
func (p Provenance) Describe() string {
	if p.Origin == "" {
		return "unknown"
	}
	parts := []string{p.Origin}
	if p.Event != "" {
		parts = append(parts, p.Event)
	}
	if p.Agent != "" {
		parts = append(parts, "("+p.Agent+")")
	}
	if p.Member != "" {
		parts = append(parts, "by "+p.Member)
	}
	s := strings.Join(parts, " ")
	if p.Untrusted {
		s += ", untrusted"
	}
	return s
}

// Review is what the instruction check found in a record. Flag names the
// rule that matched and Span is the text it matched; a flagged record is
// never given to the agent until a person releases it (Released).
type Review struct {
	Flag     string `json:"flag,omitempty"`
	Span     string `json:"flag_span,omitempty"`
	Released bool   `json:"released,omitempty"`
}

// Held reports whether the record is flagged and not released.
func (r Review) Held() bool { return r.Flag != "" && !r.Released }
