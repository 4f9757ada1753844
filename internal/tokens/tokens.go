// Package tokens estimates how many model tokens a text costs, erring high:
// a budget built on an estimate that under-counts overflows the agent's context.
package tokens

import "unicode"

// Estimate returns a conservative token count for s. Runs of letters and
// digits cost one token per four bytes (at least one); every other
// non-space character (punctuation, markup, symbols) costs one, since BPE
// tokenizers rarely merge it with its neighbours in code, paths and XML.
func Estimate(s string) int {
	n := 0
	run := 0
	flush := func() {
		if run > 0 {
			n += (run + 3) / 4
			run = 0
		}
	}
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if r > unicode.MaxASCII {
				// Non-ASCII letters are often one token each or more.
				flush()
				n++
				continue
			}
			run++
		case r == '\n':
			flush()
			n++
		case unicode.IsSpace(r):
			flush()
		default:
			flush()
			n++
		}
	}
	flush()
	return n
}
