package hook

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/memhq/mem/internal/memory"
)

// oneCleanLine fails unless s is exactly one line with no control
// characters (other than its final newline).
func oneCleanLine(t *testing.T, where, s string) {
	t.Helper()
	body, ok := strings.CutSuffix(s, "\n")
	if !ok || body == "" {
		t.Errorf("%s: %q is not one line", where, s)
	}
	for _, r := range body {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			t.Errorf("%s: control character %U in %q", where, r, s)
			return
		}
	}
}

// TestLoggerKeepsOneLine: text from the event (agent, event name, session
// id) and from messages reaches stderr and hook.log as one printable line.
func TestLoggerKeepsOneLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		ev   Event
		msg  string
		want string // must appear in the line
	}{
		{"session id", Event{Agent: "claude", Name: "SessionStart", SessionID: "abc\u0000def\n2026-01-01T00:00:00Z mem hook claude: forged"}, "boom", `"abc\\x00def\\n2026`}, // the key it is stored under, quoted
		{"event name", Event{Agent: "claude", Name: "Stop\r\x1b[2J", SessionID: "s1"}, "boom", `"Stop\r\x1b[2J"`},
		{"agent", Event{Agent: "cla\tude"}, "boom", `"cla\tude"`},
		{"message", Event{Agent: "claude", SessionID: "s1"}, "first\nsecond\u2028third\x00", `first\nsecond\u2028third\x00`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var errw bytes.Buffer
			path := filepath.Join(t.TempDir(), "hook.log")
			l := &Logger{Err: &errw, Path: path, Now: func() time.Time { return time.Unix(0, 0) }}
			l.Printf(tc.ev, "%s", tc.msg)
			oneCleanLine(t, "stderr", errw.String())
			file, err := os.ReadFile(path)
			if err != nil || string(file) != errw.String() {
				t.Fatalf("hook.log %q (%v), want %q", file, err, errw.String())
			}
			if !strings.Contains(errw.String(), tc.want) {
				t.Errorf("line %q does not contain %q", errw.String(), tc.want)
			}
		})
	}
	// Plain fields stay as they are.
	var errw bytes.Buffer
	(&Logger{Err: &errw, Now: func() time.Time { return time.Unix(0, 0) }}).Printf(Event{Agent: "claude", Name: "Stop", SessionID: "s-1"}, "boom %d", 1)
	if got, want := errw.String(), "1970-01-01T00:00:00Z mem hook claude Stop session s-1: boom 1\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestRunnerLogsAHostileSessionIDOnOneLine: an event whose session id holds
// NUL and a newline and is too long is refused, and the log says so on one
// line.
func TestRunnerLogsAHostileSessionIDOnOneLine(t *testing.T) {
	var out, errw bytes.Buffer
	r := &Runner{Adapter: adapter("claude"), Handler: newRig(t).h, Deadline: 2 * time.Second,
		Getenv: func(string) string { return "" }, Log: &Logger{Err: &errw}}
	ev := `{"session_id":"abc\u0000def\nmem hook claude: forged` + strings.Repeat("x", memory.MaxSessionIDLen) + `","hook_event_name":"SessionStart","source":"startup","cwd":"/tmp"}`
	if !r.Run(context.Background(), strings.NewReader(ev), &out) {
		t.Fatal("did not finish")
	}
	if out.Len() != 0 {
		t.Errorf("reply %q to a refused event", out.String())
	}
	oneCleanLine(t, "stderr", errw.String())
	if !strings.Contains(errw.String(), "session_id") {
		t.Errorf("log %q does not name the session_id", errw.String())
	}
}
