package privacy

import (
	"os"
	"testing"
)

// benchText reads a sample of typical tool output: 4 KB of Go source or of
// build and test output, without secrets.
func benchText(b *testing.B, name string) string {
	b.Helper()
	data, err := os.ReadFile("testdata/bench/" + name)
	if err != nil {
		b.Fatal(err)
	}
	return string(data)
}

// BenchmarkRedact measures Redact on what the hook path filters most: clean
// code and command output, and the same with one secret in the middle.
func BenchmarkRedact(b *testing.B) {
	for _, name := range []string{"code.txt", "bash.txt"} {
		clean := benchText(b, name)
		half := len(clean) / 2
		for _, c := range []struct{ name, text string }{
			{name + "/clean", clean},
			{name + "/secret", clean[:half] + "\nexport GITHUB_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a\n" + clean[half:]},
		} {
			b.Run(c.name, func(b *testing.B) {
				b.SetBytes(int64(len(c.text)))
				for b.Loop() {
					Redact(c.text)
				}
			})
		}
	}
}
