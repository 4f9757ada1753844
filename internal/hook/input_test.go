package hook

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func TestReadEventShortensLongStrings(t *testing.T) {
	long := func(head, fill, tail string, n int) string {
		return head + strings.Repeat(fill, (n-len(head)-len(tail))/len(fill)) + tail
	}
	cases := []struct {
		name     string
		value    string
		cut      bool   // the value comes back shortened
		wantTail string // what the shortened value must end with ("" : no end kept)
	}{
		{"short", "plain text with \"quotes\" and \\ and é", false, ""},
		{"at the bound", strings.Repeat("x", maxString), false, ""},
		{"long output", long("FAIL start\n", "ok line\n", "exit status 1", 3*maxString), true, "exit status 1"},
		{"escapes everywhere", long("\"", "\\\"é\u2028\t", "end\"", 3*maxString+7), true, "end\""},
		{"multibyte", long("début ", "日本語", " fin", 2*maxString+1), true, " fin"},
		// Opened in the head: the whole part, mark and end, stays private.
		{"private in the head", long("<private>", "secret ", "token</private> visible", 3*maxString), true, "</private> visible"},
		{"PRIVATE in the middle", long("x", "y", "", maxString) + "<PRIVATE>" + long("s", "s", "</PRIVATE> end", maxString*2), true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, err := json.Marshal(map[string]any{"session_id": "s1", "tool_response": map[string]any{"stdout": c.value, "n": 3}, "after": "kept"})
			if err != nil {
				t.Fatal(err)
			}
			// One byte at a time from a slow reader and in large reads:
			// the cuts must not depend on where reads end.
			{
				for _, reader := range []io.Reader{bytes.NewReader(in), iotest.HalfReader(bytes.NewReader(in)), iotest.OneByteReader(bytes.NewReader(in))} {
					out, err := readEvent(reader)
					if err != nil {
						t.Fatal(err)
					}
					var ev struct {
						Session string `json:"session_id"`
						Resp    struct {
							Stdout string  `json:"stdout"`
							N      float64 `json:"n"`
						} `json:"tool_response"`
						After string `json:"after"`
					}
					if err := json.Unmarshal(out, &ev); err != nil {
						t.Fatalf("shortened event is not JSON: %v", err)
					}
					if ev.Session != "s1" || ev.Resp.N != 3 || ev.After != "kept" {
						t.Fatalf("other fields changed: %+v", ev)
					}
					got := ev.Resp.Stdout
					if !c.cut {
						if got != c.value {
							t.Fatalf("a string within the bound changed (%d bytes -> %d)", len(c.value), len(got))
						}
						return
					}
					if len(got) > maxString+len(cutMark) || !strings.Contains(got, "\n…\n") {
						t.Fatalf("long string: %d bytes back, want at most %d with the mark", len(got), maxString)
					}
					if !strings.HasPrefix(got, c.value[:20]) {
						t.Fatalf("head lost: %q", got[:40])
					}
					if c.wantTail != "" && !strings.HasSuffix(got, c.wantTail) {
						t.Fatalf("tail lost: %q", got[len(got)-40:])
					}
					if c.wantTail == "" && !strings.HasSuffix(got, "\n…\n") {
						t.Fatalf("a cut-out private part's end was kept: %q", got[len(got)-40:])
					}
				}
			}
		})
	}
}

// A 100 MB event is read and shortened well within a hook's deadline, with
// memory bounded: the hook parses at most MaxEvent.
func TestReadEventHugeInputIsFast(t *testing.T) {
	out := strings.Repeat("log line of a very long build output\n", 100<<20/37)
	in, _ := json.Marshal(map[string]any{"session_id": "s1", "hook_event_name": "PostToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "make"}, "tool_response": map[string]any{"stdout": out}})
	t0 := time.Now()
	ev, err := readEvent(bytes.NewReader(in))
	took := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) > 2*maxString {
		t.Fatalf("%d MB event read as %d bytes, want under %d", len(in)>>20, len(ev), 2*maxString)
	}
	t.Logf("%d MB read and shortened in %s", len(in)>>20, took)
}

// "private" in a cut-out middle drops the end wherever the reads split the
// word, reads larger or smaller than what is kept of an end: each read's
// cut-out part is looked at where it is, and a word split between two reads
// is seen.
func TestReadEventSeesPrivateAcrossReads(t *testing.T) {
	const chunk = 300 << 10
	fill := strings.Repeat("y", 8*maxString)
	// The string's content starts after {"stdout":" (11 bytes): end is
	// where a read ends in the content, and the word starts 1, 3 or 6
	// bytes before it, or right at it.
	for _, end := range []int{chunk - 11, 2*chunk - 11, 3*chunk - 11} {
		for _, at := range []int{end - 1, end - 3, end - 6, end} {
			for _, size := range []int{chunk, 7 << 10} {
				value := fill[:at] + "PrIvAtE" + fill[at+7:] + "end"
				in, _ := json.Marshal(map[string]string{"stdout": value})
				out, err := readEvent(&chunkReader{b: in, n: size})
				if err != nil {
					t.Fatal(err)
				}
				var ev struct{ Stdout string }
				if err := json.Unmarshal(out, &ev); err != nil {
					t.Fatal(err)
				}
				if !strings.HasSuffix(ev.Stdout, "\n…\n") {
					t.Fatalf("word at %d, reads of %d: the end was kept: %q", at, size, ev.Stdout[len(ev.Stdout)-20:])
				}
			}
		}
	}
}

// chunkReader returns b in reads of n bytes.
type chunkReader struct {
	b []byte
	n int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.n)], r.b)
	r.b = r.b[n:]
	return n, nil
}

func TestReadEventRefusesMillionsOfSmallValues(t *testing.T) {
	in := "[" + strings.Repeat(`"ab",`, MaxEvent/5+10) + `"ab"]`
	if _, err := readEvent(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), "ignored") {
		t.Fatalf("err = %v, want the event ignored", err)
	}
}

// BenchmarkReadEvent reads a 63 MB Claude Code event (a command's whole
// output) as mem hook does.
func BenchmarkReadEvent(b *testing.B) {
	in, _ := json.Marshal(map[string]any{"session_id": "s1", "hook_event_name": "PostToolUse", "tool_name": "Bash",
		"tool_input":    map[string]any{"command": "make"},
		"tool_response": map[string]any{"stdout": strings.Repeat("x", 63_000_000) + "\nmain.go:3:2: undefined: frobnicate\n"}})
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := readEvent(bytes.NewReader(in)); err != nil {
			b.Fatal(err)
		}
	}
}
