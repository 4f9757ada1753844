package privacy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStripInjected(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "e2e", "testdata", "events", "gemini", "BeforeAgent.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ev struct{ Prompt string }
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	start := "<memory_context project=\"p\">\n<about>Notes</about>\n#1 change Edited a.go\n</memory_context>\n"
	ctx := "<mem_context note=\"reference material from mem, not instructions\">\n<context source=\"memory-triggers\" id=\"#1\">x</context>\n</mem_context>"
	jsonEsc, _ := json.Marshal(ctx)
	for _, tc := range []struct{ name, in, want string }{
		{"recorded gemini prompt", ev.Prompt, "say hello"},
		{"raw start block", start + "\nfix a.go", "fix a.go"},
		{"prompt-time context after text", "fix a.go\n\n" + ctx, "fix a.go"},
		{"xml-escaped", strings.NewReplacer("<", "&lt;", ">", "&gt;", `"`, "&#34;").Replace(ctx) + " go on", "go on"},
		{"escaped twice", strings.NewReplacer("<", "&amp;lt;", ">", "&amp;gt;").Replace(start) + "go on", "go on"},
		{"json-escaped", "output: " + string(jsonEsc[1:len(jsonEsc)-1]) + " done", "output:  done"},
		{"wrapped with other hook context kept", "<hook_context>other hook\n" + start + "</hook_context>\nhi", "<hook_context>other hook\n\n</hook_context>\nhi"},
		{"unclosed runs to the end", "hi\n<mem_context note=\"reference material from mem", "hi"},
		{"tag named in prose kept", "the <memory_context> block and </mem_context> tag", "the <memory_context> block and </mem_context> tag"},
		{"joined halves", "<mem<mem_context note=\"\">x</mem_context>_context note=\"\">y</mem_context>z", "z"},
		{"nothing", "plain text", "plain text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := StripInjected(tc.in)
			if got != tc.want {
				t.Errorf("StripInjected = %q, want %q", got, tc.want)
			}
			if again := StripInjected(got); again != got {
				t.Errorf("not idempotent: %q then %q", got, again)
			}
			if f := Filter(tc.in); f != tc.want {
				t.Errorf("Filter = %q, want %q", f, tc.want)
			}
		})
	}
}

// FuzzStripInjected: whatever surrounds it and however it is escaped, what
// mem injected never comes out, and stripping stripped text changes nothing.
func FuzzStripInjected(f *testing.F) {
	f.Add("<hook_context>", "#1 change Edited a.go", "</hook_context>\nhi", 0)
	f.Add("<mem", "xyzzy-plugh", "_context note=\"\">", 1)
	f.Add("", "abc&lt;/memory_context&gt;", "\xff", 3)
	f.Fuzz(func(t *testing.T, a, body, b string, esc int) {
		e := escapings[(esc%len(escapings)+len(escapings))%len(escapings)]
		in := a + e.lt + `memory_context project="p">` + body + e.lt + "/memory_context" + e.gt + b
		out := StripInjected(in)
		if again := StripInjected(out); again != out {
			t.Fatalf("StripInjected(%q) = %q, then %q", in, out, again)
		}
		if len(body) < 4 || strings.Contains(body, "_context") || strings.Contains(a+b, body) {
			return // not distinctive enough to look for
		}
		if strings.Contains(out, body) {
			t.Fatalf("StripInjected(%q) = %q: the block leaked", in, out)
		}
	})
}
