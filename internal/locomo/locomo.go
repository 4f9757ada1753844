// Package locomo loads the LoCoMo long-conversation memory benchmark into
// mem's records and computes its retrieval recall. It is test tooling: the
// data stays outside the repository (see scripts/eval).
package locomo

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memhq/mem/internal/memory"
)

// Conversation is one LoCoMo sample as mem sees it.
type Conversation struct {
	ID        string
	Records   []memory.Record
	Evidence  map[string][]string // observation uuid -> dia_ids it was derived from
	Questions []Question
}

// Question is one QA item: its text, category and evidence dia_ids.
type Question struct {
	Text     string
	Category int
	Evidence []string
}

// Categories names the QA categories.
var Categories = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

type rawSample struct {
	SampleID       string                     `json:"sample_id"`
	Conversation   map[string]json.RawMessage `json:"conversation"`
	Observation    map[string]map[string][][]json.RawMessage
	SessionSummary map[string]string `json:"session_summary"`
	QA             []struct {
		Question string          `json:"question"`
		Evidence []string        `json:"evidence"`
		Category int             `json:"category"`
		Answer   json.RawMessage `json:"answer"`
	} `json:"qa"`
}

// Load reads a LoCoMo JSON file.
func Load(path string) ([]Conversation, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading eval data: %w", err)
	}
	var raw []rawSample
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", path, err)
	}
	out := make([]Conversation, 0, len(raw))
	for _, r := range raw {
		c, err := convert(r)
		if err != nil {
			return nil, fmt.Errorf("sample %s: %w", r.SampleID, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// sessionDate parses "1:56 pm on 8 May, 2023".
func sessionDate(s string) (time.Time, error) {
	return time.Parse("3:04 pm on 2 January, 2006", strings.TrimSpace(s))
}

func convert(r rawSample) (Conversation, error) {
	c := Conversation{ID: r.SampleID, Evidence: map[string][]string{}}
	project := "locomo/" + r.SampleID
	// Sessions in number order.
	var nums []int
	for k := range r.Conversation {
		if n, ok := strings.CutPrefix(k, "session_"); ok && strings.HasSuffix(n, "_date_time") {
			if v, err := strconv.Atoi(strings.TrimSuffix(n, "_date_time")); err == nil {
				nums = append(nums, v)
			}
		}
	}
	sort.Ints(nums)
	for _, n := range nums {
		var ds string
		if err := json.Unmarshal(r.Conversation[fmt.Sprintf("session_%d_date_time", n)], &ds); err != nil {
			return c, err
		}
		at, err := sessionDate(ds)
		if err != nil {
			return c, fmt.Errorf("session %d date: %w", n, err)
		}
		sid := fmt.Sprintf("%s-s%d", r.SampleID, n)
		end := at.Add(time.Hour)
		c.Records = append(c.Records, memory.Record{Kind: memory.KindSession, Session: &memory.Session{
			ID: sid, Project: project, Agent: "locomo", StartedAt: at, LastActivityAt: end, EndedAt: &end,
			Status: memory.StatusEnded, FilesRead: []string{}}})
		obs := r.Observation[fmt.Sprintf("session_%d_observation", n)]
		speakers := make([]string, 0, len(obs))
		for sp := range obs {
			speakers = append(speakers, sp)
		}
		sort.Strings(speakers)
		i := 0
		for _, sp := range speakers {
			for _, fact := range obs[sp] {
				if len(fact) < 2 {
					continue
				}
				var text string
				if err := json.Unmarshal(fact[0], &text); err != nil {
					return c, fmt.Errorf("session %d fact text: %w", n, err)
				}
				ids, err := diaIDs(fact[1])
				if err != nil {
					return c, fmt.Errorf("session %d fact evidence: %w", n, err)
				}
				i++
				uuid := fmt.Sprintf("locomo-%s-%d-%d", r.SampleID, n, i)
				c.Evidence[uuid] = ids
				c.Records = append(c.Records, memory.Record{Kind: memory.KindObservation, Observation: &memory.Observation{
					UUID: uuid, SessionID: sid, Type: memory.TypeDiscovery, Title: strings.TrimSpace(text),
					Facts: []string{}, Concepts: []string{}, FilesRead: []string{}, FilesModified: []string{},
					CreatedAt: at.Add(turnOffset(ids, i))}})
			}
		}
		if text := r.SessionSummary[fmt.Sprintf("session_%d_summary", n)]; text != "" {
			c.Records = append(c.Records, memory.Record{Kind: memory.KindSummary, Summary: &memory.Summary{
				UUID: fmt.Sprintf("locomo-%s-%d-summary", r.SampleID, n), SessionID: sid, Text: text,
				Concepts: []string{}, Files: []string{}, CreatedAt: end, CoversUntil: end}})
		}
	}
	for _, q := range r.QA {
		var ev []string
		for _, e := range q.Evidence {
			ev = append(ev, splitIDs(e)...)
		}
		c.Questions = append(c.Questions, Question{Text: q.Question, Category: q.Category, Evidence: ev})
	}
	return c, nil
}

// diaIDs reads a fact's evidence: one dia_id or a list of them.
func diaIDs(raw json.RawMessage) ([]string, error) {
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return splitIDs(one), nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, err
	}
	var out []string
	for _, m := range many {
		out = append(out, splitIDs(m)...)
	}
	return out, nil
}

// splitIDs splits "D1:3; D1:4" style lists, which the data sometimes has.
func splitIDs(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || r == ' ' }) {
		out = append(out, f)
	}
	return out
}

// Recall is the LoCoMo retrieval recall of one question at k: the share of
// its evidence dia_ids that some retrieved observation among the first k was
// derived from. A question without evidence counts as 1.
func Recall(q Question, retrieved [][]string, k int) float64 {
	if len(q.Evidence) == 0 {
		return 1
	}
	if len(retrieved) > k {
		retrieved = retrieved[:k]
	}
	have := map[string]bool{}
	for _, ids := range retrieved {
		for _, id := range ids {
			have[id] = true
		}
	}
	n := 0
	for _, e := range q.Evidence {
		if have[e] {
			n++
		}
	}
	return float64(n) / float64(len(q.Evidence))
}

// turnOffset places an observation in its session by the dialogue turn it
// came from (D3:12 is turn 12), as if it had been recorded when the turn was
// said; i keeps facts of the same turn apart.
func turnOffset(ids []string, i int) time.Duration {
	turn := 0
	if len(ids) > 0 {
		if _, n, ok := strings.Cut(ids[0], ":"); ok {
			turn, _ = strconv.Atoi(n)
		}
	}
	return time.Duration(turn)*time.Minute + time.Duration(i)*time.Millisecond
}
