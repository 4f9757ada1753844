package search

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// nasty are inputs people and agents type that break naive FTS5 queries.
var nasty = []string{
	"", " ", "\"", "\"\"", "'", "*", "-", "^", ":", "(", ")", "()", "NOT", "AND", "OR", "NEAR",
	"NOT x", "a AND", "OR OR OR", "NEAR(a b, 3)", "title:foo", "col:", "{title}: x", "x*", "*x",
	"internal/store/db.go", "db.go", "SQLITE_BUSY", "parseDSN", "re-index", "--flag=value",
	`"unbalanced quote`, `say "hello`, `it's`, `don't "stop`, "🙂", "🙂🙂 emoji only", "日本語のテキスト",
	"naïve café", "x\x00y", "\xff\xfe invalid utf8", "a\nb\tc", "C++", "c#", "f(x) = y^2 + 1",
	"SELECT * FROM observations; DROP TABLE observations;--", "100%", "$HOME/.config", "~/x",
	"https://example.com/a?b=c&d=e#frag", "ERROR 2026-01-31T10:00:00Z panic: runtime error: index out of range [3] with length 3",
	strings.Repeat("goroutine 1 [running]:\nmain.main()\n\t/src/main.go:12 +0x1d\n", 250),
}

func TestParseWords(t *testing.T) {
	tests := []struct {
		in      string
		terms   []string
		phrases []string
	}{
		{"When did Caroline go to the support group?", []string{"caroline", "go", "support", "group"}, nil},
		{"internal/store/db.go", []string{"internal", "store", "db", "go"}, []string{"internal store db go"}},
		{"SQLITE_BUSY error", []string{"sqlite", "busy", "error"}, []string{"sqlite busy"}},
		{"re-index the FTS", []string{"index", "fts"}, []string{"re index"}},
		{"the of and", []string{"the", "of", "and"}, nil},
		{"NOT x AND y", []string{"x"}, nil},
		{"🙂 \"\"", nil, nil},
		{"retry retry Retry", []string{"retry"}, nil},
	}
	for _, tt := range tests {
		p := Parse(tt.in)
		var terms, phrases []string
		for _, x := range p.Terms {
			terms = append(terms, x.Text)
		}
		for _, ph := range p.Phrases {
			phrases = append(phrases, strings.Join(ph, " "))
		}
		if !reflect.DeepEqual(terms, tt.terms) || !reflect.DeepEqual(phrases, tt.phrases) {
			t.Errorf("Parse(%q) = terms %q phrases %q, want %q %q", tt.in, terms, phrases, tt.terms, tt.phrases)
		}
	}
}

func TestMatchCamelCase(t *testing.T) {
	got := Parse("parseDSN").Match(MatchOptions{})
	want := `"parsedsn" OR "parse dsn" OR "parse" OR "dsn"`
	if got != want {
		t.Errorf("Match = %s, want %s", got, want)
	}
	if got := Parse("migration").Match(MatchOptions{Prefix: 4}); got != `"migration"*` {
		t.Errorf("prefix Match = %s", got)
	}
}

func TestMatchIsAlwaysQuoted(t *testing.T) {
	for _, in := range nasty {
		checkMatch(t, in, Parse(in).Match(MatchOptions{Prefix: 3, Bigrams: true}))
	}
}

func TestMatchCapsLongInput(t *testing.T) {
	p := Parse(nasty[len(nasty)-1] + strings.Repeat(" word", 1000) + " unique1 unique2")
	units := len(p.Units(MatchOptions{}))
	if len(p.Terms) > MaxTerms || len(p.Phrases) > MaxPhrases || units > MaxUnits+MaxPhrases {
		t.Errorf("%d terms, %d phrases, %d strings; want at most %d, %d, %d", len(p.Terms), len(p.Phrases), units,
			MaxTerms, MaxPhrases, MaxUnits+MaxPhrases)
	}
}

// TestLongTextKeepsItsRareWords: a pasted log is cut to its most
// distinctive words, in their order: the words and identifiers it has once
// or twice, not its boilerplate, its numbers or its first words.
func TestLongTextKeepsItsRareWords(t *testing.T) {
	var log strings.Builder
	for i := 0; i < 120; i++ {
		fmt.Fprintf(&log, "2026-03-%02dT12:%02d:00Z INFO worker request handled status=200 took=%dms id=%d\n", i%28+1, i%60, i*7, 1000+i)
		if i == 40 {
			log.WriteString("2026-03-13T12:40:00Z ERROR worker PriceThumbnail failed: checksum mismatch in ledgerCompaction\n")
		}
	}
	text := log.String()
	if len(text) < 8<<10 {
		t.Fatalf("the log is only %d bytes", len(text))
	}
	p := Parse(text)
	var got []string
	for _, term := range p.Terms {
		got = append(got, term.Text)
	}
	want := []string{"pricethumbnail", "checksum", "mismatch", "ledgercompaction"}
	i := 0
	for _, w := range got {
		if i < len(want) && w == want[i] {
			i++
		}
	}
	if i < len(want) {
		t.Errorf("kept %q; want %q among them in that order", got, want)
	}
	if len(p.Terms) > MaxTerms || len(p.Units(MatchOptions{})) > MaxUnits+MaxPhrases {
		t.Errorf("%d terms, %d strings", len(p.Terms), len(p.Units(MatchOptions{})))
	}
	// A question of ordinary length is kept whole.
	q := "why did the PriceThumbnail job fail with a checksum mismatch after the ledger compaction on Tuesday night"
	if p := Parse(q); len(p.Terms) == 0 || p.Terms[len(p.Terms)-1].Text != "night" {
		t.Errorf("Parse(%q) kept %+v, want every word", q, p.Terms)
	}
}

// checkMatch asserts the expression is a list of quoted strings joined by
// OR: the shape that cannot be an FTS5 syntax error.
func checkMatch(t *testing.T, in, m string) {
	t.Helper()
	if m == "" {
		return
	}
	for _, part := range strings.Split(m, " OR ") {
		part = strings.TrimSuffix(part, "*")
		if len(part) < 3 || part[0] != '"' || part[len(part)-1] != '"' {
			t.Fatalf("Parse(%q).Match has unquoted part %q in %s", in, part, m)
		}
		inner := part[1 : len(part)-1]
		if strings.Contains(strings.ReplaceAll(inner, `""`, ""), `"`) {
			t.Fatalf("Parse(%q).Match has a stray quote in %q", in, part)
		}
		for _, r := range inner {
			if r != ' ' && !isWordRune(r) {
				t.Fatalf("Parse(%q).Match has non-word rune %q in %q", in, r, part)
			}
		}
	}
	if !utf8.ValidString(m) {
		t.Fatalf("Parse(%q).Match is not valid UTF-8", in)
	}
}

func FuzzMatch(f *testing.F) {
	for _, in := range nasty {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkMatch(t, in, Parse(in).Match(MatchOptions{Prefix: 4, Bigrams: true}))
	})
}

func TestSnippet(t *testing.T) {
	text := "We tried many things. Then the retry loop used exponential backoff with jitter and it worked."
	got := Snippet(text, []string{"retries", "backoff"}, 8)
	want := "… things. Then the [retry] loop used exponential [backoff] …"
	if got != want {
		t.Errorf("Snippet = %q, want %q", got, want)
	}
	if got := Snippet("short text", []string{"absent"}, 8); got != "short text" {
		t.Errorf("Snippet without hits = %q", got)
	}
}

func TestDates(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"What did Melanie paint on October 13, 2023?", []string{"2023-10-13/1"}},
		{"what changed on 2026-01-31 and 13 May 2024", []string{"2026-01-31/1", "2024-05-13/1"}},
		{"the release in March 2024", []string{"2024-03-01/0.5"}},
		{"since 2022", []string{"2022-01-01/0.25"}},
		{"2023-02-30 is not a day", nil},
		{"port 8080 and 99999", nil},
		{"on 13 Oct 23 or 2 0 2 4, v1.20.3", nil},
		{"１２０２３ full-width digits", nil},
		{"x2024y", nil},
		{"build_2024", nil},
		{"Oct 3, 2024", []string{"2024-10-03/1"}},
	}
	for _, tt := range tests {
		var got []string
		for _, s := range Dates(tt.in) {
			got = append(got, s.From.Format("2006-01-02")+"/"+formatFloat(s.Precision))
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Dates(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func formatFloat(f float64) string {
	switch f {
	case 1:
		return "1"
	case 0.5:
		return "0.5"
	case 0.25:
		return "0.25"
	}
	return "?"
}

func TestHasPhrase(t *testing.T) {
	tests := []struct {
		text  string
		words []string
		want  bool
	}{
		{"call parseDSN first", []string{"parse", "dsn"}, true},
		{"see internal/store/db.go", []string{"store", "db", "go"}, true},
		{"retries failed with SQLITE_BUSY", []string{"sqlite", "busy"}, true},
		{"busy sqlite", []string{"sqlite", "busy"}, false},
		{"parsing the DSN", []string{"parse", "dsn"}, false},
	}
	for _, tt := range tests {
		if got := HasPhrase(tt.text, tt.words); got != tt.want {
			t.Errorf("HasPhrase(%q, %q) = %v, want %v", tt.text, tt.words, got, tt.want)
		}
	}
}
