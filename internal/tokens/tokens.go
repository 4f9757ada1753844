// Package tokens estimates how many model tokens a text costs, erring high:
// a budget built on an estimate that under-counts overflows the agent's context.
package tokens

import "unicode/utf8"

// Estimate returns a conservative token count for s, calibrated against the
// o200k BPE tokenizer (see the README and TestEstimateIsConservative):
//   - a run of ASCII letters costs one token per four letters (at least one);
//   - a run of digits costs one token per three digits, since BPE vocabularies
//     split numbers into groups of at most three; a switch between letters and
//     digits (hashes, ids like x509) starts a new run;
//   - every other non-space character (punctuation, markup, symbols, line
//     breaks) and every non-ASCII character costs one;
//   - spaces and tabs are free (BPE glues them to the next word).
//
// Estimate is subadditive: Estimate(a+b) <= Estimate(a)+Estimate(b), so the
// sum of the estimates of pieces bounds the estimate of their concatenation.
func Estimate(s string) int {
	n := 0
	letters, digits := 0, 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			if digits > 0 {
				n += (digits + 2) / 3
				digits = 0
			}
			letters++
			i++
			continue
		case c >= '0' && c <= '9':
			if letters > 0 {
				n += (letters + 3) / 4
				letters = 0
			}
			digits++
			i++
			continue
		}
		n += (letters+3)/4 + (digits+2)/3
		letters, digits = 0, 0
		switch {
		case c == ' ' || c == '\t':
			i++
		case c < utf8.RuneSelf:
			n++
			i++
		default:
			_, size := utf8.DecodeRuneInString(s[i:])
			n++
			i += size
		}
	}
	return n + (letters+3)/4 + (digits+2)/3
}
