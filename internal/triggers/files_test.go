package triggers

import (
	"strings"
	"testing"
)

// TestContextTextRedactsAcrossTheCut: the filter reads past the cut, so a
// secret the cut would split is redacted whole; redacting a long block does
// not pull a split secret from past the filtered head into the entry.
func TestContextTextRedactsAcrossTheCut(t *testing.T) {
	token := "ghp_" + strings.Repeat("a1B2", 9)
	pem := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7\n", 60) + "-----END RSA PRIVATE KEY-----\n"
	words := func(n int) string { return strings.Repeat("word ", n) }
	for _, tc := range []struct {
		name, text string
		budget     int
	}{
		{"token at the cut", words(100) + token + " " + words(2000), 120},
		{"token past the cut", words(100) + "\n" + words(50) + token + "\n" + words(2000), 120},
		{"quoted password at the cut", words(99) + "password = \"two words\"\n" + words(2000), cutAt(words(99)+"password = \"two words\"\n"+words(2000), `"two`)},
		{"key block, then a token across the end of the filtered head", straddle(pem, token, 600), 600},
		{"unclosed private part", words(50) + "<private> " + token + words(3000), 100},
		{"one long line", strings.Repeat(token+" ", 2000), 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := contextText(tc.text, tc.budget)
			if strings.Contains(got, "ghp_") || strings.Contains(got, "a1B2a1B2") || strings.Contains(got, "two") || strings.Contains(got, "MIIE") {
				t.Errorf("a secret or part of one kept:\n%s", got)
			}
			if got == "" {
				t.Error("nothing kept")
			}
		})
	}
}

// straddle builds a text whose cut falls inside a key block and whose
// filtered head ends inside token: redacting the block shortens the text,
// so what follows it up to the head's end fits the budget.
func straddle(pem, token string, budget int) string {
	n := len(Trim(pem+strings.Repeat("word ", 5000), budget)) + filterMargin
	filler := strings.Repeat("w ", (n-len(pem)-len(token)/2)/2)
	return pem + filler + token + " " + strings.Repeat("word ", 2000)
}

// cutAt returns a budget at which Trim cuts text right after mark.
func cutAt(text, mark string) int {
	for b := 10; b < 2000; b++ {
		cut, _, _ := strings.Cut(Trim(text, b), "\n[")
		if strings.HasSuffix(cut, mark) {
			return b
		}
	}
	panic("no budget cuts after " + mark)
}
