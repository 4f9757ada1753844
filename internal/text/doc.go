// Package text holds the word-level helpers that search, recall, triggers,
// the collector and the scheduler share: a light stemmer, an identifier
// splitter, the stop word lists and an XML escaper. It depends on nothing
// else in mem.
package text
