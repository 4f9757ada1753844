package hook

import (
	"strings"
	"testing"
)

// TestCopilotAndCursorReplies: where each protocol takes context, and in
// which shape (verified against Copilot CLI 1.0.102; Cursor as documented).
func TestCopilotAndCursorReplies(t *testing.T) {
	r := newRig(t)
	got := r.run(t, "copilot", `{"hook_event_name":"SessionStart","session_id":"p1","cwd":"/w","source":"new"}`)
	if want := `{"additionalContext":"<memory_context mode=\"start\" session=\"p1\"/>"}` + "\n"; got != want {
		t.Fatalf("copilot start: got %s want %s", got, want)
	}
	got = r.run(t, "cursor", `{"hook_event_name":"sessionStart","conversation_id":"c1","session_id":"c1","workspace_roots":["/w"]}`)
	if want := `{"additional_context":"<memory_context mode=\"start\" session=\"c1\"/>"}` + "\n"; got != want {
		t.Fatalf("cursor start: got %s want %s", got, want)
	}
	for _, ev := range []string{
		`{"hook_event_name":"beforeSubmitPrompt","conversation_id":"c1","workspace_roots":["/w"],"prompt":"hi"}`,
		`{"hook_event_name":"preCompact","conversation_id":"c1","workspace_roots":["/w"],"trigger":"auto"}`,
		`{"hook_event_name":"stop","conversation_id":"c1","workspace_roots":["/w"],"status":"completed","loop_count":0}`,
		`{"hook_event_name":"sessionEnd","conversation_id":"c1","session_id":"c1","workspace_roots":["/w"],"reason":"completed"}`,
	} {
		if got := r.run(t, "cursor", ev); got != "" {
			t.Errorf("cursor takes context at sessionStart only; %s got %s", ev, got)
		}
	}
	// Encode, for a reply that has context: the events that take none
	// answer nothing.
	for _, tc := range []struct {
		a     Adapter
		event string
		want  string
	}{
		{adapter("copilot"), "UserPromptSubmit", `{"additionalContext":"x"}`},
		{adapter("copilot"), "PostToolUse", `{"additionalContext":"x"}`},
		{adapter("copilot"), "PostToolUseFailure", ``},
		{adapter("copilot"), "PreCompact", ``},
		{adapter("copilot"), "Stop", ``},
		{adapter("cursor"), "sessionStart", `{"additional_context":"x"}`},
		{adapter("cursor"), "beforeSubmitPrompt", ``},
		{adapter("cursor"), "afterFileEdit", ``},
	} {
		if got := string(tc.a.Encode(Event{Name: tc.event}, Reply{Context: "x"})); got != tc.want {
			t.Errorf("%s %s: got %q want %q", tc.a.Agent(), tc.event, got, tc.want)
		}
	}
}

// TestCopilotCompactionBlockComesWithTheNextPrompt: Copilot's PreCompact
// takes no context, manual or automatic, and every one compacts: the block
// comes with the next prompt, once; a new start drops it.
func TestCopilotCompactionBlockComesWithTheNextPrompt(t *testing.T) {
	for _, trigger := range []string{"manual", "auto"} {
		r := newRig(t)
		r.run(t, "copilot", `{"hook_event_name":"SessionStart","session_id":"p1","cwd":"/w","source":"new"}`)
		if got := r.run(t, "copilot", `{"hook_event_name":"PreCompact","session_id":"p1","cwd":"/w","trigger":"`+trigger+`"}`); got != "" {
			t.Fatalf("PreCompact takes no context, got %s", got)
		}
		if len(r.summary) != 1 {
			t.Fatalf("PreCompact should checkpoint: %v", r.summary)
		}
		got := r.run(t, "copilot", `{"hook_event_name":"UserPromptSubmit","session_id":"p1","cwd":"/w","prompt":"go on"}`)
		if !strings.Contains(got, `mode=\"compact\"`) || !strings.HasPrefix(got, `{"additionalContext":`) {
			t.Fatalf("%s: the prompt after PreCompact: %s", trigger, got)
		}
		if got := r.run(t, "copilot", `{"hook_event_name":"UserPromptSubmit","session_id":"p1","cwd":"/w","prompt":"again"}`); got != "" {
			t.Fatalf("the compaction block comes once, got %s", got)
		}
	}
	r := newRig(t)
	r.run(t, "copilot", `{"hook_event_name":"SessionStart","session_id":"p1","cwd":"/w","source":"new"}`)
	r.run(t, "copilot", `{"hook_event_name":"PreCompact","session_id":"p1","cwd":"/w","trigger":"auto"}`)
	r.run(t, "copilot", `{"hook_event_name":"SessionStart","session_id":"p1","cwd":"/w","source":"resume"}`)
	if got := r.run(t, "copilot", `{"hook_event_name":"UserPromptSubmit","session_id":"p1","cwd":"/w","prompt":"go on"}`); strings.Contains(got, `mode=\"compact\"`) {
		t.Fatalf("the compaction block came on top of the start block: %s", got)
	}
	// Cursor has no place for the block: its preCompact only checkpoints.
	r = newRig(t)
	r.run(t, "cursor", `{"hook_event_name":"sessionStart","conversation_id":"c1","workspace_roots":["/w"]}`)
	r.run(t, "cursor", `{"hook_event_name":"preCompact","conversation_id":"c1","workspace_roots":["/w"],"trigger":"manual"}`)
	if len(r.summary) != 1 {
		t.Fatalf("cursor preCompact should checkpoint: %v", r.summary)
	}
}
