package recall

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"testing"

	"github.com/memhq/mem/internal/memory"
)

// memSource is an in-memory Source over plain slices, ordered as the store
// orders them.
type memSource struct {
	Sessions     []memory.Session     `json:"sessions"`
	Observations []memory.Observation `json:"observations"`
	Summaries    []memory.Summary     `json:"summaries"`
	PromptList   []memory.Prompt      `json:"prompts"`
}

func (m *memSource) Session(_ context.Context, id string) (memory.Session, error) {
	for _, s := range m.Sessions {
		if s.ID == id {
			return s, nil
		}
	}
	return memory.Session{}, fmt.Errorf("session %s: %w", id, memory.ErrNotFound)
}

func newestObsFirst(l []memory.Observation) {
	less := func(i, j int) bool {
		if !l[i].CreatedAt.Equal(l[j].CreatedAt) {
			return l[i].CreatedAt.After(l[j].CreatedAt)
		}
		return l[i].ID > l[j].ID
	}
	if !sort.SliceIsSorted(l, less) { // benchmarks keep the memory sorted
		sort.SliceStable(l, less)
	}
}

func (m *memSource) RecentSummaries(_ context.Context, project, exclude string, limit int) ([]memory.Summary, error) {
	var out []memory.Summary
	for _, s := range m.Summaries {
		if s.Project == project && s.SessionID != exclude {
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.After(out[j].CreatedAt)
		}
		return out[i].ID > out[j].ID
	})
	return out[:min(limit, len(out))], nil
}

func (m *memSource) RecentBriefs(_ context.Context, project string, types []memory.Type, limit int, older *memory.Observation) ([]memory.Observation, error) {
	var out []memory.Observation
	for _, o := range m.Observations {
		if o.Project != project {
			continue
		}
		if older != nil && !(o.CreatedAt.Before(older.CreatedAt) || o.CreatedAt.Equal(older.CreatedAt) && o.ID < older.ID) {
			continue
		}
		if len(types) > 0 {
			ok := false
			for _, t := range types {
				ok = ok || o.Type == t
			}
			if !ok {
				continue
			}
		}
		out = append(out, o)
	}
	newestObsFirst(out)
	return out[:min(limit, len(out))], nil
}

func (m *memSource) SessionObservations(_ context.Context, id string, limit int) ([]memory.Observation, error) {
	var out []memory.Observation
	for _, o := range m.Observations {
		if o.SessionID == id {
			out = append(out, o)
		}
	}
	newestObsFirst(out)
	return out[:min(limit, len(out))], nil
}

func (m *memSource) Prompts(_ context.Context, id string) ([]memory.Prompt, error) {
	var out []memory.Prompt
	for _, p := range m.PromptList {
		if p.SessionID == id {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].PromptNumber < out[j].PromptNumber })
	return out, nil
}

func (m *memSource) CountObservationsUpTo(_ context.Context, project string, limit int) (int, error) {
	n := 0
	for _, o := range m.Observations {
		if o.Project == project {
			n++
		}
	}
	return min(n, limit), nil
}

func (m *memSource) CountSummariesUpTo(_ context.Context, project, exclude string, limit int) (int, error) {
	n := 0
	for _, s := range m.Summaries {
		if s.Project == project && s.SessionID != exclude {
			n++
		}
	}
	return min(n, limit), nil
}

// loadFixture reads testdata/fixture.json: a realistic memory of a project.
func loadFixture(t testing.TB) *memSource {
	b, err := os.ReadFile("testdata/fixture.json")
	if err != nil {
		t.Fatal(err)
	}
	var m memSource
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return &m
}
