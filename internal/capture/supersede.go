package capture

import (
	"slices"
	"strings"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/text"
)

// Supersedes proposes the earlier observation that o replaces, where that
// is safe, or 0:
//   - a check that passes again retires the failure of the same command;
//   - an edit that rewrites what an earlier edit of the same file wrote
//     (every line the earlier one wrote, if distinctive, is a line this one
//     replaced) retires that earlier change.
//
// earlier are observations of the same project, newest first. What it
// gets wrong is measured on testdata/supersede.json (capture's README).
func Supersedes(o *memory.Observation, earlier []memory.Observation) int64 {
	if o == nil {
		return 0
	}
	switch o.Type {
	case memory.TypeSuccess:
		cmd := factOf(o, "command: ")
		if cmd == "" || !hasConcept(o, ConceptCheck) {
			return 0
		}
		for i := range earlier {
			e := &earlier[i]
			if e.Type == memory.TypeProblem && e.SupersededBy == 0 && hasConcept(e, ConceptCheck) && factOf(e, "command: ") == cmd {
				return e.ID
			}
		}
	case memory.TypeChange:
		if len(o.FilesModified) != 1 || !strings.HasPrefix(o.Title, "Edited ") {
			return 0
		}
		before := factsOf(o, "before: ")
		if len(before) == 0 {
			return 0
		}
		for i := range earlier {
			e := &earlier[i]
			if e.ID == o.ID || e.Type != memory.TypeChange || e.SupersededBy != 0 || !strings.HasPrefix(e.Title, "Edited ") ||
				len(e.FilesModified) != 1 || e.FilesModified[0] != o.FilesModified[0] {
				continue
			}
			after := factsOf(e, "after: ")
			if len(after) > 0 && !slices.ContainsFunc(after, func(l string) bool { return !text.Distinctive(l) || !slices.Contains(before, l) }) {
				return e.ID
			}
		}
	}
	return 0
}

func factOf(o *memory.Observation, prefix string) string {
	if fs := factsOf(o, prefix); len(fs) > 0 {
		return fs[0]
	}
	return ""
}

func factsOf(o *memory.Observation, prefix string) []string {
	var out []string
	for _, f := range o.Facts {
		if v, ok := strings.CutPrefix(f, prefix); ok {
			out = append(out, v)
		}
	}
	return out
}
