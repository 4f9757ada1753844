package agent

import "encoding/json"

// gemini speaks Gemini CLI's hook protocol: Claude-like JSON under other
// event names (BeforeAgent, AfterTool, PreCompress, AfterAgent).
type gemini struct{}

type geminiEvent struct {
	claudeEvent
	PromptResponse json.RawMessage `json:"prompt_response"`
	Trigger        json.RawMessage `json:"trigger"`
}

// newGemini returns the adapter for Gemini CLI's hook protocol.
func newGemini() Adapter { return gemini{} }

func (gemini) Agent() string { return Gemini }

func (gemini) Decode(data []byte, getenv func(string) string) (Event, error) {
	var e geminiEvent
	if err := decodeLenient(data, &e); err != nil {
		return Event{}, err
	}
	ev := Event{Agent: Gemini, Name: text(e.Event), SessionID: text(e.SessionID), Cwd: text(e.Cwd),
		Source: text(e.Source), ProjectDir: getenv("GEMINI_PROJECT_DIR")}
	if ev.Source == "" {
		ev.Source = text(e.Trigger)
	}
	transcript := text(e.Transcript)
	switch ev.Name {
	case "SessionStart":
		ev.Kind, ev.CompactionAtPrompt = KindSessionStart, true
	case "BeforeAgent":
		ev.Kind, ev.Prompt, ev.CompactionAtPrompt = KindPrompt, text(e.Prompt), true
		ev.Transcript, ev.CompactionSettled = transcript, true
	case "AfterTool":
		ev.Kind, ev.Call, ev.ContextAfterTool, ev.CompactionAtPrompt = KindTool, e.call(), true, true
		ev.Transcript, ev.CompactionSettled = transcript, true
	case "PreCompress":
		// Gemini takes no context here: checkpoint now, and give the
		// compaction block with the next prompt or tool result. /compress
		// (manual) compresses; an automatic PreCompress fires before Gemini
		// checks its threshold, on every turn, compressed or not: whether
		// it compressed shows in the transcript by the next event.
		ev.Kind, ev.CompactionAtPrompt = KindPreCompact, ev.Source == "manual"
		if !ev.CompactionAtPrompt {
			ev.Transcript, ev.CompactionUnsure = transcript, transcript != ""
		}
	case "AfterAgent":
		ev.Kind, ev.Message = KindStop, text(e.PromptResponse)
		ev.Transcript, ev.CompactionSettled = transcript, true
	case "SessionEnd":
		ev.Kind = KindSessionEnd
	}
	return ev, nil
}

func (gemini) Encode(ev Event, r Reply) []byte {
	if r.Context == "" {
		return nil
	}
	switch ev.Name {
	case "SessionStart", "BeforeAgent", "AfterTool":
		return additionalContext(ev.Name, r.Context)
	}
	return nil
}
