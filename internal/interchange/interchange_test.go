package interchange

import (
	"errors"
	"strings"
	"testing"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/privacy"
)

const goodSession = `{"kind":"session","id":"s1","project":"p","started_at":"2026-01-02T03:04:05Z"}`
const goodObs = `{"kind":"observation","uuid":"u1","session_id":"s1","type":"note","title":"t","created_at":"2026-01-02T03:04:05.123Z"}`

func TestDecodeRejectsBadLines(t *testing.T) {
	tests := []struct {
		name  string
		line  string
		field string
	}{
		{"not json", `{"kind":`, "json"},
		{"unknown kind", `{"kind":"memo"}`, "kind"},
		{"session without id", `{"kind":"session","project":"p","started_at":"2026-01-02T03:04:05Z"}`, "id"},
		{"session without project", `{"kind":"session","id":"s","started_at":"2026-01-02T03:04:05Z"}`, "project"},
		{"bad time", `{"kind":"session","id":"s","project":"p","started_at":"yesterday"}`, "json"},
		{"bad status", `{"kind":"session","id":"s","project":"p","started_at":"2026-01-02T03:04:05Z","status":"gone"}`, "status"},
		{"observation bad type", `{"kind":"observation","uuid":"u","session_id":"s","type":"idea","title":"t","created_at":"2026-01-02T03:04:05Z"}`, "type"},
		{"observation no uuid", `{"kind":"observation","session_id":"s","type":"note","title":"t","created_at":"2026-01-02T03:04:05Z"}`, "uuid"},
		{"observation empty title", `{"kind":"observation","uuid":"u","session_id":"s","type":"note","title":"","created_at":"2026-01-02T03:04:05Z"}`, "title"},
		{"facts not an array", `{"kind":"observation","uuid":"u","session_id":"s","type":"note","title":"t","facts":"x","created_at":"2026-01-02T03:04:05Z"}`, "facts"},
		{"session id with ESC", `{"kind":"session","id":"s\u001b]52;c;eA==\u0007","project":"p","started_at":"2026-01-02T03:04:05Z"}`, "id"},
		{"session id with U+2028", `{"kind":"session","id":"s\u2028x","project":"p","started_at":"2026-01-02T03:04:05Z"}`, "id"},
		{"project with NUL", `{"kind":"session","id":"s","project":"p\u0000","started_at":"2026-01-02T03:04:05Z"}`, "project"},
		{"observation uuid with ESC", `{"kind":"observation","uuid":"u\u001b[2J","session_id":"s","type":"note","title":"t","created_at":"2026-01-02T03:04:05Z"}`, "uuid"},
		{"observation title with NUL", `{"kind":"observation","uuid":"u","session_id":"s","type":"note","title":"a\u0000b","created_at":"2026-01-02T03:04:05Z"}`, "title"},
		{"summary session with ESC", `{"kind":"summary","uuid":"u","session_id":"s\u001b","text":"x","created_at":"2026-01-02T03:04:05Z"}`, "session_id"},
		{"prompt uuid with U+2029", `{"kind":"prompt","uuid":"u\u2029","session_id":"s","prompt_number":1,"text":"x","created_at":"2026-01-02T03:04:05Z"}`, "uuid"},
		{"prompt number zero", `{"kind":"prompt","uuid":"u","session_id":"s","prompt_number":0,"text":"x","created_at":"2026-01-02T03:04:05Z"}`, "prompt_number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := goodSession + "\n" + tt.line + "\n" + goodObs + "\n"
			_, err := Decode(strings.NewReader(in))
			var le *memory.LineError
			if !errors.As(err, &le) || le.Line != 2 {
				t.Fatalf("got %v, want an error on line 2", err)
			}
			var ve *memory.ValidationError
			if !errors.As(err, &ve) || ve.Field != tt.field {
				t.Fatalf("got %v, want a validation error on field %q", err, tt.field)
			}
		})
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	recs, err := Decode(strings.NewReader(goodSession + "\n\n" + goodObs + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[1].Line != 3 {
		t.Fatalf("records %+v", recs)
	}
	var b strings.Builder
	enc := NewEncoder(&b)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	enc.Flush()
	again, err := Decode(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if again[1].Observation.CreatedAt != recs[1].Observation.CreatedAt || again[0].Session.ID != "s1" {
		t.Errorf("round trip changed records: %s", b.String())
	}
}

func FuzzDecodeLine(f *testing.F) {
	for _, s := range []string{goodSession, goodObs, `{"kind":"prompt"}`, `[]`, `null`, `{"kind":"summary","uuid":"x"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := DecodeLine(b)
		if err != nil {
			return
		}
		// An accepted record always has the pointer its kind names.
		ok := (rec.Kind == memory.KindSession && rec.Session != nil) ||
			(rec.Kind == memory.KindObservation && rec.Observation != nil) ||
			(rec.Kind == memory.KindSummary && rec.Summary != nil) ||
			(rec.Kind == memory.KindPrompt && rec.Prompt != nil)
		if !ok {
			t.Fatalf("accepted %q as %+v", b, rec)
		}
	})
}

// Imported text passes the privacy filter like text recorded by mem itself.
func TestDecodeFiltersPrivateText(t *testing.T) {
	const secret = `<private>hunter2</private> ghp_16C7e42F292c6912E7710c838347Ae178B4a password=hunter2`
	lines := []string{
		`{"kind":"session","id":"s1S","parent_id":"S","agent_type":"S","cwd":"/w/S","project":"p","started_at":"2026-01-02T03:04:05Z","files_read":["S"],"last_message":"S"}`,
		`{"kind":"observation","uuid":"u1","session_id":"s1S","type":"note","title":"keep S","subtitle":"S","narrative":"S","facts":["S"],"concepts":["S"],"files_read":["S"],"files_modified":["S"],"tool_name":"S","agent_type":"S","created_at":"2026-01-02T03:04:05Z"}`,
		`{"kind":"summary","uuid":"u2","session_id":"s1S","request":"S","investigated":"S","learned":"S","completed":"S","next_steps":"S","decisions":"S","concepts":["S"],"files":["S"],"text":"S","created_at":"2026-01-02T03:04:05Z"}`,
		`{"kind":"prompt","uuid":"u3","session_id":"s1S","prompt_number":1,"text":"keep S","created_at":"2026-01-02T03:04:05Z"}`,
	}
	in := strings.ReplaceAll(strings.Join(lines, "\n"), "S", strings.ReplaceAll(secret, `"`, `\"`))
	recs, err := Decode(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	enc := NewEncoder(&b)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, leak := range []string{"hunter2", "ghp_16C7", "<private>"} {
		if strings.Contains(out, leak) {
			t.Errorf("%q was kept:\n%s", leak, out)
		}
	}
	if !strings.Contains(out, `"title":"keep [REDACTED] password=[REDACTED]"`) {
		t.Errorf("the title lost more than its secrets:\n%s", out)
	}
	// The session id is filtered the same way wherever it appears.
	id := `"` + privacy.SessionKey("s1"+secret) + `"`
	if n := strings.Count(out, `"id":`+id) + strings.Count(out, `"session_id":`+id); n != 4 {
		t.Errorf("the session id was not filtered the same way in each record (%d of 4):\n%s", n, out)
	}
	// What comes out decodes to itself: the filter changes filtered text no more.
	again, err := Decode(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	var c strings.Builder
	enc = NewEncoder(&c)
	for _, r := range again {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	if c.String() != out {
		t.Errorf("a second pass changed the records:\n%s\n%s", out, c.String())
	}
}

func TestDecodeRejectsEntirelyPrivateText(t *testing.T) {
	for field, line := range map[string]string{
		"title": `{"kind":"observation","uuid":"u","session_id":"s1","type":"note","title":"<private>all</private>","created_at":"2026-01-02T03:04:05Z"}`,
		"text":  `{"kind":"prompt","uuid":"u","session_id":"s1","prompt_number":1,"text":"<private>all</private>","created_at":"2026-01-02T03:04:05Z"}`,
	} {
		_, err := Decode(strings.NewReader(goodSession + "\n" + line + "\n"))
		var le *memory.LineError
		var ve *memory.ValidationError
		if !errors.As(err, &le) || le.Line != 2 || !errors.As(err, &ve) || ve.Field != field {
			t.Errorf("%s: got %v, want a validation error on line 2, field %s", field, err, field)
		}
	}
}
