package benchgen

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
)

func TestGenerate(t *testing.T) {
	var first bytes.Buffer
	perSession := map[string]int{}
	seen := map[string]bool{}
	projects := map[string]bool{}
	total, rare := 0, 0
	err := Generate(Options{Observations: 30000, Seed: 5}, func(r memory.Record) error {
		b, _ := json.Marshal(r)
		first.Write(b)
		switch r.Kind {
		case memory.KindSession:
			seen[r.Session.ID] = true
			projects[r.Session.Project] = true
			if r.Session.StartedAt.Before(DefaultEnd.Add(-366*24*time.Hour)) || r.Session.StartedAt.After(DefaultEnd) {
				t.Errorf("session %s starts %v, outside the year before %v", r.Session.ID, r.Session.StartedAt, DefaultEnd)
			}
		case memory.KindObservation:
			o := r.Observation
			if !seen[o.SessionID] {
				t.Fatalf("observation %s before its session", o.UUID)
			}
			if err := o.Validate(); err != nil {
				t.Fatalf("invalid observation %s: %v", o.UUID, err)
			}
			perSession[o.SessionID]++
			total++
			if strings.Contains(o.Subtitle+o.Narrative+strings.Join(o.Facts, " "), RareWord) {
				rare++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if total < 30000 || total > 30060 {
		t.Errorf("%d observations, want about 30000", total)
	}
	for s, n := range perSession {
		if n < 10 || n > 60 {
			t.Errorf("session %s has %d observations, want 10-60", s, n)
		}
	}
	if len(projects) < 4 {
		t.Errorf("%d projects, want several", len(projects))
	}
	if rare == 0 || rare > 10 {
		t.Errorf("rare word in %d observations, want a few", rare)
	}
	var second bytes.Buffer
	Generate(Options{Observations: 30000, Seed: 5}, func(r memory.Record) error {
		b, _ := json.Marshal(r)
		second.Write(b)
		return nil
	})
	if !bytes.Equal(first.Bytes(), second.Bytes()) {
		t.Error("the same seed gave different records")
	}
}

func TestCommonWordsAreFrequent(t *testing.T) {
	for _, w := range strings.Fields(CommonWords) {
		if i := slices.Index(words, w); i < 0 || i >= 10 {
			t.Errorf("%q is word %d of the vocabulary, want one of the 10 most frequent", w, i)
		}
	}
	if words[0] != CommonWord {
		t.Errorf("CommonWord %q, but the most frequent word is %q", CommonWord, words[0])
	}
}
