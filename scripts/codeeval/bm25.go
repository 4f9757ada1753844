package main

import (
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/memhq/mem/internal/text"
)

// bm25 is the plain baseline: Okapi BM25 (k1 1.2, b 0.75) over documents
// added one by one, words lower-cased, stopwords dropped, Porter-stemmed.
type bm25 struct {
	docs [][]string // terms of each document
	df   map[string]int
	len  int // total terms
}

func newBM25() *bm25 { return &bm25{df: map[string]int{}} }

func terms(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	}) {
		if !text.IsStopword(w) {
			out = append(out, text.Stem(w))
		}
	}
	return out
}

func (b *bm25) add(doc string) {
	t := terms(doc)
	b.docs = append(b.docs, t)
	b.len += len(t)
	seen := map[string]bool{}
	for _, w := range t {
		if !seen[w] {
			seen[w] = true
			b.df[w]++
		}
	}
}

// rank returns the indices of the documents that share a term with q, best
// first (ties: the newer first).
func (b *bm25) rank(q string) []int {
	const k1, bb = 1.2, 0.75
	n := float64(len(b.docs))
	if n == 0 {
		return nil
	}
	avg := float64(b.len) / n
	qt := map[string]bool{}
	for _, w := range terms(q) {
		qt[w] = true
	}
	type scored struct {
		i int
		s float64
	}
	var res []scored
	for i, d := range b.docs {
		tf := map[string]int{}
		for _, w := range d {
			if qt[w] {
				tf[w]++
			}
		}
		s := 0.0
		// Summed in term order: a sum in map order differs in its last bits
		// from run to run and reorders equal scores.
		for _, w := range slices.Sorted(maps.Keys(tf)) {
			f := tf[w]
			idf := math.Log(1 + (n-float64(b.df[w])+0.5)/(float64(b.df[w])+0.5))
			s += idf * float64(f) * (k1 + 1) / (float64(f) + k1*(1-bb+bb*float64(len(d))/avg))
		}
		if s > 0 {
			res = append(res, scored{i, s})
		}
	}
	sort.SliceStable(res, func(i, j int) bool {
		if res[i].s != res[j].s {
			return res[i].s > res[j].s
		}
		return res[i].i > res[j].i
	})
	out := make([]int, len(res))
	for i, r := range res {
		out[i] = r.i
	}
	return out
}
