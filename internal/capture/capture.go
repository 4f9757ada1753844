// Package capture turns an editor's tool calls into few, useful observations
// without a model: file edits become changes, failing commands problems, a
// passing check after a failure a success, and reads only add to the files a
// session has read. Every text taken from a tool call passes the privacy
// filter before anything else looks at it, and the same call always gives the
// same observation, so repeated events deduplicate in the store. A prompt in
// which the user states a preference for every project becomes one for the
// personal tier (Preference).
package capture

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/memhq/mem/internal/guard"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/privacy"
	"github.com/memhq/mem/internal/text"
)

// Call is one tool call as an agent reported it, after the hook adapter has
// found its parts.
type Call struct {
	Tool     string          // the agent's tool name: Edit, Bash, apply_patch, replace, edit, ...
	Input    json.RawMessage `json:",omitempty"` // the tool's arguments
	Response json.RawMessage `json:",omitempty"` // what the tool returned (object or string)
	// Failed is set when the agent says the call failed (PostToolUseFailure).
	Failed bool
	// Error is the agent's error text for a failed call.
	Error string
}

// Where tells capture where the call happened.
type Where struct {
	SessionID    string
	Root         string // project root: stored paths are relative to it
	Cwd          string // the session's working directory, for relative paths
	PromptNumber int
	AgentType    string
	Agent        string // the agent whose event it is (claude-code, codex, ...): the observation's provenance
}

// Result is what a call is worth keeping.
type Result struct {
	// Observation is nil when the call is not worth one.
	Observation *memory.Observation
	// FilesRead are files the call read or searched, for the session.
	FilesRead []string
	// Check is set for a test, build or lint run that passed: it becomes a
	// success when the session's latest command problem is a failed check.
	Check *Run
	// Written is the text an in-place edit wrote (its first edit), so that
	// the lines it occupies can be cited. It is not filtered: it is only
	// looked for in the file, never stored or shown.
	Written string `json:"-"`
	// Fetched are the memory entries (#12, S3) the call fetched through mem
	// itself (mem get, search, timeline), for the feedback on what mem
	// injected.
	Fetched []string `json:",omitempty"`
}

// Run is a command run.
type Run struct {
	Command string
	Failed  bool
	IsCheck bool // a test, build, lint or type-check command
}

// Tool kinds.
const (
	kindEdit    = "edit"
	kindWrite   = "write"
	kindPatch   = "patch"
	kindCommand = "command"
	kindRead    = "read"
	kindSearch  = "search"
)

// Kind reports how capture treats a tool name ("" when it ignores it).
func Kind(tool string) string {
	switch strings.ToLower(strings.TrimSpace(tool)) {
	case "edit", "multiedit", "replace", "notebookedit", "edit_file", "str_replace", "str_replace_editor":
		return kindEdit
	case "write", "write_file", "create_file":
		return kindWrite
	case "apply_patch", "patch":
		return kindPatch
	case "bash", "shell", "run_shell_command", "exec_command", "local_shell", "container.exec":
		return kindCommand
	case "read", "read_file", "read_many_files", "notebookread", "view":
		return kindRead
	case "grep", "glob", "ls", "list", "list_directory", "search_file_content", "grep_search", "codesearch":
		return kindSearch
	}
	return ""
}

// Analyze decides what a tool call is worth.
func Analyze(c Call, w Where) Result {
	in := decodeObject(c.Input)
	switch Kind(c.Tool) {
	case kindEdit:
		if c.Failed {
			return Result{}
		}
		o, changed := editObservation(c, in, w)
		r := observe(o, c, w, changed...)
		if r.Observation != nil {
			r.Written = writtenText(in)
		}
		return r
	case kindWrite:
		if c.Failed {
			return Result{}
		}
		return observe(writeObservation(c, in, w), c, w)
	case kindPatch:
		if c.Failed {
			return Result{}
		}
		o, changed := patchObservation(c, in, w)
		return observe(o, c, w, changed...)
	case kindCommand:
		return commandResult(c, in, w)
	case kindRead, kindSearch:
		return Result{FilesRead: readPaths(c, in, w, Kind(c.Tool) == kindSearch)}
	}
	return Result{}
}

// observe fills the fields every captured observation shares, its
// provenance among them: the agent and the tool event. sources are the
// texts it was made from beyond what it keeps (an edit's changed lines, of
// which it keeps names): instruction-shaped text there flags it too.
func observe(o *memory.Observation, c Call, w Where, sources ...string) Result {
	if o == nil {
		return Result{}
	}
	o.Provenance = memory.Provenance{Origin: memory.OriginTool, Agent: privacy.Filter(w.Agent), Event: privacy.Filter(c.Tool)}
	o.SessionID = w.SessionID
	o.PromptNumber = w.PromptNumber
	o.AgentType = w.AgentType
	for _, f := range o.FilesModified {
		// A file outside the project or in a vendored tree holds other
		// people's text.
		o.Untrusted = o.Untrusted || guard.ForeignPath(f)
	}
	o.Normalize()
	if o.Validate() != nil {
		return Result{}
	}
	guard.MarkObservation(o)
	if o.Review.Flag == "" && len(sources) > 0 {
		o.Review = guard.Review(o.Review, sources...)
	}
	return Result{Observation: o}
}

// clean is the privacy filter every extracted text passes first. Capture
// keeps only short excerpts, so texts are bounded, but private parts and
// the blocks mem injected go first, from the whole text (a tag past the
// bound would otherwise be lost and what it hides kept), and the bound never splits a secret. Redacting is
// what costs, so it runs on the bounded text only.
func clean(s string) string {
	return privacy.Filter(headOf(privacy.Strip(s), maxText))
}

// headOf returns at most the first n bytes of s (already stripped of private
// parts), cut before any secret the cut would split and on a character
// boundary.
func headOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:privacy.CutBefore(s, n)], "")
}

// tailOf returns at most the last n bytes of s, like headOf.
func tailOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[privacy.CutAfter(s, len(s)-n):], "")
}

const maxText = 64 << 10

// rel makes p relative to the project root when it lies inside it. The
// result passes the filter: p was filtered, but the session's folder or the
// root it is joined with may hold a secret too.
func rel(p string, w Where) string {
	return privacy.Filter(relPath(p, w))
}

func relPath(p string, w Where) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) {
		base := w.Cwd
		if base == "" {
			base = w.Root
		}
		if base == "" {
			return filepath.ToSlash(filepath.Clean(p))
		}
		p = filepath.Join(base, p)
	}
	p = filepath.Clean(p)
	if w.Root != "" {
		if r, err := filepath.Rel(w.Root, p); err == nil && r != ".." && !strings.HasPrefix(r, "../") {
			return filepath.ToSlash(r)
		}
	}
	return filepath.ToSlash(p)
}

// decodeObject reads a JSON object leniently; anything else gives an empty map.
func decodeObject(raw json.RawMessage) map[string]any {
	var m map[string]any
	if len(raw) > 0 && json.Unmarshal(raw, &m) == nil && m != nil {
		return m
	}
	return map[string]any{}
}

// str returns the first string field among names.
func str(m map[string]any, names ...string) string {
	for _, n := range names {
		if s, ok := m[n].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// firstLine returns the first non-blank line of s, trimmed and cut to max runes.
func firstLine(s string, max int) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return text.Cut(l, max)
		}
	}
	return ""
}
