package interchange

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/memhq/mem/internal/memory"
)

// RepoFile is where a repository keeps its shared memory, from its root
// (mem share --git writes it, every member's mem reads it at session start).
// Not under .mem: that name is the project's switch file (mem disable).
const RepoFile = ".mem.jsonl"

// RepoLine is one line of a repository's memory file: an observation, or
// the tombstone of one forgotten (Forgotten set, the text gone). Fields are
// written in this order, empty ones left out, so the same record gives the
// same bytes.
type RepoLine struct {
	UUID          string      `json:"uuid"`
	Created       time.Time   `json:"created_at"`
	Forgotten     *time.Time  `json:"forgotten_at,omitempty"`
	Type          memory.Type `json:"type,omitempty"`
	Title         string      `json:"title,omitempty"`
	Narrative     string      `json:"narrative,omitempty"`
	Facts         []string    `json:"facts,omitempty"`
	Concepts      []string    `json:"concepts,omitempty"`
	FilesRead     []string    `json:"files_read,omitempty"`
	FilesModified []string    `json:"files_modified,omitempty"`
}

// RepoLineOf is the line of an observation.
func RepoLineOf(o memory.Observation) RepoLine {
	return RepoLine{UUID: o.UUID, Created: o.CreatedAt.UTC().Truncate(time.Millisecond), Type: o.Type, Title: o.Title,
		Narrative: o.Narrative, Facts: o.Facts, Concepts: o.Concepts, FilesRead: o.FilesRead, FilesModified: o.FilesModified}
}

// Tombstone is the line that stands for l once forgotten: its uuid and
// date stay (so it keeps its place in the file), its text goes.
func (l RepoLine) Tombstone(at time.Time) RepoLine {
	at = at.UTC().Truncate(time.Millisecond)
	return RepoLine{UUID: l.UUID, Created: l.Created, Forgotten: &at}
}

// ReadRepository reads a repository's memory file: one record per uuid, a
// tombstone winning over any line of the same uuid (concurrent edits merged
// with merge=union can leave two), else the last line. Lines that are not
// records (a merge's conflict markers, garbage) are skipped.
func ReadRepository(data []byte) []RepoLine {
	byUUID := map[string]RepoLine{}
	var order []string
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		var l RepoLine
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &l) != nil || memory.ValidateKey("uuid", "uuid", l.UUID) != nil {
			continue
		}
		prev, seen := byUUID[l.UUID]
		if !seen {
			order = append(order, l.UUID)
		}
		if seen && prev.Forgotten != nil {
			continue
		}
		byUUID[l.UUID] = l
	}
	out := make([]RepoLine, 0, len(order))
	for _, u := range order {
		out = append(out, byUUID[u])
	}
	return out
}

// WriteRepository renders a repository's memory file: one JSON object a
// line, oldest first (then by uuid), so a new record adds a line at the end
// and a forget changes one line where it stands.
func WriteRepository(lines []RepoLine) ([]byte, error) {
	slices.SortFunc(lines, func(a, b RepoLine) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.UUID, b.UUID)
	})
	var b bytes.Buffer
	for _, l := range lines {
		enc, err := json.Marshal(l)
		if err != nil {
			return nil, err
		}
		b.Write(enc)
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}
