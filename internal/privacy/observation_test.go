package privacy

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/memhq/mem/internal/memory"
)

func TestCleanObservation(t *testing.T) {
	const tok = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
	o, err := CleanObservation(memory.Observation{SessionID: "s1", Type: memory.TypeChange,
		Title: "Moved <private>hunter2</private> the config", Subtitle: "password=hunter2", Narrative: tok,
		Facts: []string{"<private>hunter2</private>", "kept"}, Concepts: []string{"token=" + tok},
		FilesRead: []string{tok + "/<private>x</private>"}, FilesModified: []string{"password=hunter2"},
		ToolName: "mcp/" + tok, AgentType: "<private>hunter2</private>reviewer"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(o)
	for _, leak := range []string{"hunter2", tok, "<private>"} {
		if strings.Contains(string(b), leak) {
			t.Errorf("%q kept: %s", leak, b)
		}
	}
	if o.Title != "Moved the config" || strings.Join(o.Facts, ",") != "kept" || o.AgentType != "reviewer" {
		t.Errorf("got %+v", o)
	}

	_, err = CleanObservation(memory.Observation{SessionID: "s1", Type: memory.TypeChange, Title: "<private>all</private>"})
	var ve *memory.ValidationError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), "title") {
		t.Errorf("an entirely private title gave %v", err)
	}
}
