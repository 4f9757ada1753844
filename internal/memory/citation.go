package memory

import (
	"fmt"
	"strings"
)

// Citation is a file an observation cites, as it was when the observation
// was made: where (the work tree's root and the path in it), and a
// fingerprint to tell later whether the file still says the same.
type Citation struct {
	ObservationID int64  `json:"-"`
	Path          string `json:"path"` // relative to Root
	Root          string `json:"root"` // the work tree the event came from
	Role          string `json:"role"` // read or modified
	Size          int64  `json:"size"` // -1: the file did not exist
	ModTime       int64  `json:"mtime_ns"`
	// Hash is the file's git blob id; empty when the file was over the
	// hashing cap.
	Hash      string `json:"hash,omitempty"`
	LineStart int    `json:"line_start,omitempty"`
	LineEnd   int    `json:"line_end,omitempty"`
	// Span finds lines LineStart to LineEnd again when the file changed
	// elsewhere (cite.Take); empty when the whole file is compared.
	Span string `json:"span,omitempty"`
	// SeenSize and SeenModTime are where a check last found the file with
	// other content (SeenSize -2: never).
	SeenSize    int64 `json:"-"`
	SeenModTime int64 `json:"-"`
}

// Citation roles.
const (
	CiteRead     = "read"
	CiteModified = "modified"
)

// Freshness is how a cited file, or an observation, stands against the
// work tree now.
type Freshness string

// Freshness values, from best to worst. Unknown: the cited work tree is not
// on this machine (another clone, a CI checkout, a team member), so nothing
// is said.
const (
	Unchanged Freshness = "unchanged"
	Unknown   Freshness = "unknown"
	Changed   Freshness = "changed"
	Gone      Freshness = "gone"
)

// FileState is one cited file's standing.
type FileState struct {
	Path  string    `json:"path"`
	State Freshness `json:"state"`
}

// Standing is an observation's standing against the work tree: Stale when
// a file it cites changed or went, Gone when every file it cites went.
type Standing struct {
	Stale bool        `json:"stale"`
	Gone  bool        `json:"gone"`
	Files []FileState `json:"files,omitempty"`
}

// StaleWeight is the share of its rank a record keeps when a file it cites
// changed or went since it was recorded: it is still found and given,
// marked, below what still holds. Search, recall and prompt-time context
// all rank by it; those that give context leave out a record whose cited
// files all went.
const StaleWeight = 0.5

// Moved lists the files that changed or went, for a reader.
func (s Standing) Moved() []FileState {
	var out []FileState
	for _, f := range s.Files {
		if f.State == Changed || f.State == Gone {
			out = append(out, f)
		}
	}
	return out
}

// Note says in a few words what moved, for the line of an observation:
// "stale: internal/pay/retry.go changed", "gone: a.go, b.go".
func (s Standing) Note() string {
	moved := s.Moved()
	if len(moved) == 0 {
		return ""
	}
	word := "stale"
	if s.Gone {
		word = "gone"
	}
	var parts []string
	for i, f := range moved {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("%d more", len(moved)-3))
			break
		}
		parts = append(parts, f.Path+" "+string(f.State))
	}
	return word + ": " + strings.Join(parts, ", ")
}

// Quotes reports whether a summary quotes an observation's title: its
// first 40 bytes, or its head before a colon (summaries shorten what
// follows, "Edited a.go: x := 1 → x := 2").
func (s *Summary) Quotes(title string) bool {
	title = strings.TrimSpace(title)
	keys := []string{title}
	if len(title) > 40 {
		keys[0] = strings.ToValidUTF8(title[:40], "")
	}
	if head, _, ok := strings.Cut(title, ": "); ok && len(head) >= 12 {
		keys = append(keys, head+": ")
	}
	for _, f := range []string{s.Request, s.Investigated, s.Learned, s.Completed, s.NextSteps, s.Decisions, s.Text} {
		for _, k := range keys {
			if k != "" && strings.Contains(f, k) {
				return true
			}
		}
	}
	return false
}
