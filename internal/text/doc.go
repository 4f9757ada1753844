// Package text holds the text helpers that search, recall, triggers, the
// collector, the scheduler, the instruction check and the privacy filter
// share: a light stemmer, an identifier splitter, the stop word lists, an
// XML escaper, and line and case helpers. It depends on nothing else in
// mem.
package text
