package termsafe

import (
	"bytes"
	"fmt"
	"testing"
)

func TestEscape(t *testing.T) {
	for _, tc := range []struct {
		name, in, line, text string
	}{
		{"plain", "héllo wörld", "héllo wörld", "héllo wörld"},
		{"layout", "a\n\tb", `a\n\tb`, "a\n\tb"},
		{"carriage return", "ok\r", `ok\r`, `ok\r`},
		{"ESC colour", "\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`, `\x1b[31mred\x1b[0m`},
		{"OSC 52 clipboard", "\x1b]52;c;cm0gLXJmIH4=\x07", `\x1b]52;c;cm0gLXJmIH4=\a`, `\x1b]52;c;cm0gLXJmIH4=\a`},
		{"OSC 8 link", "\x1b]8;;http://evil\x1b\\x\x1b]8;;\x1b\\", `\x1b]8;;http://evil\x1b\x\x1b]8;;\x1b\`, `\x1b]8;;http://evil\x1b\x\x1b]8;;\x1b\`},
		{"NUL and DEL", "a\x00b\x7f", `a\x00b\x7f`, `a\x00b\x7f`},
		{"C1 CSI", "a\u009b2Jb", `a\u009b2Jb`, `a\u009b2Jb`},
		{"separators", "a\u2028b\u2029c", `a\u2028b\u2029c`, `a\u2028b\u2029c`},
		{"bidi override", "user\u202egnp.exe\u202c", `user\u202egnp.exe\u202c`, `user\u202egnp.exe\u202c`},
		{"bidi isolate and marks", "\u2066x\u2069\u200e\u200f\u061c", `\u2066x\u2069\u200e\u200f\u061c`, `\u2066x\u2069\u200e\u200f\u061c`},
		{"invalid UTF-8", "a\xffb\xc3", `a\xffb\xc3`, `a\xffb\xc3`},
		{"replacement char kept", "a\uFFFDb", "a\uFFFDb", "a\uFFFDb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Line(tc.in); got != tc.line {
				t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
			}
			if got := Text(tc.in); got != tc.text {
				t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.text)
			}
			if HasControl(Line(tc.in)) {
				t.Errorf("Line(%q) still has a control character", tc.in)
			}
			if want := tc.in != tc.line; HasControl(tc.in) != want {
				t.Errorf("HasControl(%q) = %v, want %v", tc.in, !want, want)
			}
		})
	}
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	n, err := fmt.Fprintf(w, "#%d %s\n", 1, "title\x1b]52;c;eA==\x07")
	if err != nil || n != len("#1 title\x1b]52;c;eA==\x07\n") {
		t.Fatalf("Fprintf: %d, %v", n, err)
	}
	if got, want := b.String(), "#1 title\\x1b]52;c;eA==\\a\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}

func FuzzLine(f *testing.F) {
	f.Add("a\x1b\u2028\xff\n")
	f.Fuzz(func(t *testing.T, s string) {
		if l := Line(s); HasControl(l) {
			t.Errorf("Line(%q) = %q has a control character", s, l)
		}
		if x := Text(s); HasControl(x) && bytes.ContainsFunc([]byte(x), func(r rune) bool { return IsControl(r) && r != '\n' && r != '\t' }) {
			t.Errorf("Text(%q) = %q has a control character", s, x)
		}
	})
}
