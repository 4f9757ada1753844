package agentmem

import (
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
)

// Keys survive what agents do to their files: a bullet moved keeps its key,
// an edited one takes the key of the one it replaced, a new one gets its own.
func TestAssignKeepsKeys(t *testing.T) {
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	first := Assign("gemini", "/m.md", "p", nil, parseBullets("# A\n- one\n- two\n- three\n", ""), at)
	old := make([]memory.SourceEntry, len(first))
	for i, s := range first {
		old[i] = s.Entry
	}
	uuidOf := func(ss []memory.Sourced, title string) string {
		for _, s := range ss {
			if s.Observation.Title == title {
				return s.Entry.UUID
			}
		}
		return ""
	}
	for _, tc := range []struct {
		name, md string
		same     map[string]string // new title -> old title whose uuid it keeps
		fresh    []string          // titles with a uuid not seen before
	}{
		{"unchanged", "# A\n- one\n- two\n- three\n", map[string]string{"one": "one", "two": "two", "three": "three"}, nil},
		{"moved", "# A\n- three\n- one\n- two\n", map[string]string{"one": "one", "two": "two", "three": "three"}, nil},
		{"edited", "# A\n- one\n- TWO, edited\n- three\n", map[string]string{"one": "one", "TWO, edited": "two", "three": "three"}, nil},
		{"added", "# A\n- one\n- two\n- three\n- four\n", map[string]string{"one": "one", "two": "two", "three": "three"}, []string{"four"}},
		{"other section", "# B\n- one\n", nil, []string{"one"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Assign("gemini", "/m.md", "p", old, parseBullets(tc.md, ""), at)
			for n, o := range tc.same {
				if uuidOf(got, n) != uuidOf(first, o) {
					t.Errorf("%q does not keep the uuid of %q", n, o)
				}
			}
			for _, n := range tc.fresh {
				u := uuidOf(got, n)
				for _, o := range first {
					if o.Entry.UUID == u {
						t.Errorf("%q took the uuid of %q", n, o.Observation.Title)
					}
				}
			}
		})
	}
}

func TestParsers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		got    []Entry
		titles []string
	}{
		{"claude index skips links", parseClaude("MEMORY.md", "- [Role](role.md) — x\n- CI has 2 cores\n  and no GPU\n```\n- not a bullet\n```\n"), []string{"CI has 2 cores"}},
		{"claude topic", parseClaude("role.md", "---\nname: Role\ndescription: The user is a Go engineer\ntype: user\n---\nBody.\n"), []string{"The user is a Go engineer"}},
		{"gemini global only its section", parseGemini(true, "# Mine\n- not saved by gemini\n\n## Gemini Added Memories\n- fact one\n- fact two\n## Other\n- no\n"), []string{"fact one", "fact two"}},
		{"codex blocks of the project", parseCodex("---\nrollout_summary_files:\n  - a.md (ok, cwd=/r/sub, updated_at=x)\ndescription: mine\n---\n\n- b\n\n---\nrollout_summary_files:\n  - c.md (ok, cwd=/rx, updated_at=x)\ndescription: not mine\n---\n\n- d\n", "/r"), []string{"mine"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.got) != len(tc.titles) {
				t.Fatalf("got %d entries %+v, want %v", len(tc.got), tc.got, tc.titles)
			}
			for i, e := range tc.got {
				if e.Title != tc.titles[i] {
					t.Errorf("entry %d: title %q, want %q", i, e.Title, tc.titles[i])
				}
			}
		})
	}
	if e := parseClaude("role.md", "---\ntype: user\ndescription: d\n---\nx"); !e[0].Personal || e[0].Type != memory.TypeNote {
		t.Errorf("a user memory is personal: %+v", e)
	}
}
