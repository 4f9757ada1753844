package locomo

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestRecall(t *testing.T) {
	q := Question{Evidence: []string{"D1:1", "D2:5"}}
	retrieved := [][]string{{"D9:9"}, {"D2:5", "D2:6"}, {"D1:1"}}
	for k, want := range map[int]float64{1: 0, 2: 0.5, 3: 1, 50: 1} {
		if got := Recall(q, retrieved, k); got != want {
			t.Errorf("Recall@%d = %v, want %v", k, got, want)
		}
	}
	if got := Recall(Question{}, nil, 5); got != 1 {
		t.Errorf("Recall without evidence = %v, want 1", got)
	}
}

func TestLoad(t *testing.T) {
	sample := `[{"sample_id": "c1",
	  "conversation": {"speaker_a": "A", "speaker_b": "B", "session_1_date_time": "1:56 pm on 8 May, 2023",
	    "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]},
	  "observation": {"session_1_observation": {"A": [["A likes tea.", "D1:1"], ["A has a cat.", ["D1:2", "D1:3"]]]}},
	  "session_summary": {"session_1_summary": "A and B talked."},
	  "qa": [{"question": "What does A like?", "answer": "tea", "evidence": ["D1:1; D1:2"], "category": 4}]}]`
	path := filepath.Join(t.TempDir(), "l.json")
	if err := os.WriteFile(path, []byte(sample), 0o644); err != nil {
		t.Fatal(err)
	}
	convs, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	c := convs[0]
	kinds := map[string]int{}
	for _, r := range c.Records {
		kinds[r.Kind]++
	}
	if want := map[string]int{"session": 1, "observation": 2, "summary": 1}; !reflect.DeepEqual(kinds, want) {
		t.Errorf("records %v, want %v", kinds, want)
	}
	if got := c.Questions[0].Evidence; !reflect.DeepEqual(got, []string{"D1:1", "D1:2"}) {
		t.Errorf("evidence %v", got)
	}
	var ids [][]string
	for _, r := range c.Records {
		if r.Observation != nil {
			ids = append(ids, c.Evidence[r.Observation.UUID])
			if r.Observation.CreatedAt.Year() != 2023 {
				t.Errorf("observation date %v", r.Observation.CreatedAt)
			}
		}
	}
	if want := [][]string{{"D1:1"}, {"D1:2", "D1:3"}}; !reflect.DeepEqual(ids, want) {
		t.Errorf("fact evidence %v, want %v", ids, want)
	}
}
