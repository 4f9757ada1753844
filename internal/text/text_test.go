package text

import (
	"encoding/xml"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestStem(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"refund", "refund"},
		{"refunds", "refund"},
		{"refunded", "refund"},
		{"refunding", "refund"},
		{"query", "quer"},
		{"queries", "quer"},
		{"queried", "quer"},
		{"validation", "valid"},
		{"handle", "handl"},
		{"handling", "handl"},
		{"quickly", "quick"},
		{"bus", "bus"}, // too short to strip
		{"cafés", "café"},
		{"", ""},
	} {
		got := Stem(tc.in)
		if got != tc.want {
			t.Errorf("Stem(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if !strings.HasPrefix(tc.in, got) {
			t.Errorf("Stem(%q) = %q is not a prefix of the word", tc.in, got)
		}
	}
}

func TestSplitIdent(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"parseDSNConfig", []string{"parse", "DSN", "Config"}},
		{"OrderService", []string{"Order", "Service"}},
		{"HTTPServer", []string{"HTTP", "Server"}},
		{"oauth2Client", []string{"oauth", "2", "Client"}},
		{"ÉtatGlobal", []string{"État", "Global"}},
		{"größeÄndern", []string{"größe", "Ändern"}},
		{"plain", []string{"plain"}},
	} {
		if got := SplitIdent(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("SplitIdent(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestStopwords(t *testing.T) {
	for _, tc := range []struct {
		w           string
		stop, noise bool
	}{
		{"the", true, true},
		{"because", true, true},
		{"please", false, true},
		{"file", false, true},
		{"handl", false, true},
		{"refund", false, false},
	} {
		if got := IsStopword(tc.w); got != tc.stop {
			t.Errorf("IsStopword(%q) = %v, want %v", tc.w, got, tc.stop)
		}
		if got := IsNoise(tc.w); got != tc.noise {
			t.Errorf("IsNoise(%q) = %v, want %v", tc.w, got, tc.noise)
		}
	}
}

func TestEscapeXML(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`a < b && c > "d"`, `a &lt; b &amp;&amp; c &gt; &quot;d&quot;`},
		{"don't", "don't"},
		{"tab\tline\nret\r", "tab\tline\nret\r"},
		{"bell\x07nul\x00", "bellnul"},
		{"bad\xffbyte", "bad\uFFFDbyte"},
		{"non\uFFFEchar\uFFFF", "nonchar"},
	} {
		if got := EscapeXML(tc.in); got != tc.want {
			t.Errorf("EscapeXML(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// The escaped text reads back as itself from an attribute in double quotes
// and from between tags.
func TestEscapeXMLRoundTrip(t *testing.T) {
	for _, s := range []string{`it's "quoted" & <tagged>`, "it's\ttabbed\nand 'single'", "é ü 日本"} {
		var v struct {
			Attr string `xml:"v,attr"`
			Text string `xml:",chardata"`
		}
		doc := `<a v="` + EscapeXML(s) + `">` + EscapeXML(s) + `</a>`
		if err := xml.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if v.Attr != s {
			t.Errorf("attribute %q, want %q", v.Attr, s)
		}
		if v.Text != s {
			t.Errorf("text %q, want %q", v.Text, s)
		}
	}
}

func TestIndexTerms(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{"call parseDSN"}, "parse dsn"},
		{[]string{"OrderService.save", "orderService again"}, "order service"}, // once, whatever the case
		{[]string{"OrderService", "OrderService"}, "order service"},
		{[]string{"plain words only"}, ""},
	} {
		if got := IndexTerms(tc.in...); got != tc.want {
			t.Errorf("IndexTerms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{168 * time.Hour, "7d"},
		{36 * time.Hour, "1d 12h"},
		{90 * time.Minute, "1h 30m"},
		{2 * time.Hour, "2h"},
		{24*time.Hour + 30*time.Minute, "1d"},
		{2 * time.Second, "2s"},
		{250 * time.Millisecond, "250ms"},
		{0, "0s"},
		{-time.Hour, "-1h"},
	} {
		if got := Duration(c.d); got != c.want {
			t.Errorf("Duration(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

func TestFirstLine(t *testing.T) {
	for in, want := range map[string]string{
		"":                  "",
		"one":               "one",
		"  \n one\ntwo\n":   "one",
		"go test ./...\r\n": "go test ./...",
		"a  b \nc":          "a  b ",
	} {
		if got := FirstLine(in); got != want {
			t.Errorf("FirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCutWord(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly ten", 11, "exactly ten"},
		{"go test ./internal/store -run TestX", 28, "go test ./internal/store…"},
		{"go test ./internal/store -run TestX", 20, "go test ./…"}, // no space in the second half: cut at half
		{"averyveryverylongwordwithoutspaces", 10, "avery…"},
		{"héllo wörld", 8, "héllo…"},
		{"ééééé", 5, "é…"},
	}
	for _, tt := range tests {
		if got := CutWord(tt.in, tt.n); got != tt.want {
			t.Errorf("CutWord(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestASCIILower(t *testing.T) {
	for in, want := range map[string]string{
		"":              "",
		"already lower": "already lower",
		"MiXeD Case 42": "mixed case 42",
		"ÉTÉ \xffK":     "ÉtÉ \xffk", // non-ASCII and invalid bytes kept, offsets kept
		"\u212aelvin":   "\u212aelvin",
	} {
		got := ASCIILower(in)
		if got != want || len(got) != len(in) {
			t.Errorf("ASCIILower(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUpperFirst(t *testing.T) {
	for in, want := range map[string]string{"": "", "i prefer tabs": "I prefer tabs", "über": "Über", "Already": "Already", "\xffx": "\xffx"} {
		if got := UpperFirst(in); got != want {
			t.Errorf("UpperFirst(%q) = %q, want %q", in, got, want)
		}
	}
}
