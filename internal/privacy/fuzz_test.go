package privacy

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzFilter: whatever surrounds it, text inside <private>...</private>
// never comes out of Filter, and Filter never panics or breaks UTF-8.
func FuzzFilter(f *testing.F) {
	f.Add("before ", "hunter2-secret", " after")
	f.Add("<PRIVATE>", "nested <private> tag", "</private> tail")
	f.Add("password=", "abc123456", "")
	f.Add("<priv", "xyzzy-plugh", "ate>")
	f.Add("", "sk-ant-0123456789abcdefghijk", "\xff")
	f.Fuzz(func(t *testing.T, a, secret, b string) {
		in := a + "<private>" + secret + "</private>" + b
		out := Filter(in)
		if utf8.ValidString(in) && !utf8.ValidString(out) {
			t.Fatalf("Filter(%q) = %q: invalid UTF-8", in, out)
		}
		ls := strings.ToLower(secret)
		if len(secret) < 4 || strings.Contains(ls, "private>") || strings.Contains(strings.ToLower(a+b), ls) ||
			strings.Contains(strings.ToLower(Redacted), ls) {
			return // not distinctive enough to look for
		}
		if strings.Contains(strings.ToLower(out), ls) {
			t.Fatalf("Filter(%q) = %q: the private part leaked", in, out)
		}
	})
}
