package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/memhq/mem/internal/benchgen"
	"github.com/memhq/mem/internal/memory"
)

// benchRecords returns n observations of synthetic memory with their
// sessions, prompts and summaries.
func benchRecords(tb testing.TB, n int) []memory.Record {
	return benchRecordsSeed(tb, n, 7, "bench")
}

// benchRecordsSeed is benchRecords with another seed and id prefix.
func benchRecordsSeed(tb testing.TB, n int, seed uint64, prefix string) []memory.Record {
	tb.Helper()
	var recs []memory.Record
	err := benchgen.Generate(benchgen.Options{Observations: n, Seed: seed, Prefix: prefix}, func(r memory.Record) error {
		r.Line = len(recs) + 1
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return recs
}

// BenchmarkImport measures Import of 5,000 observations (with their
// sessions, prompts and summaries) into an empty database and into one that
// already holds 20,000, indexing row by row (the triggers), in one pass at
// the end (what Import does from 1,000 observations), and by rebuilding the
// whole full-text index.
func BenchmarkImport(b *testing.B) {
	batch := benchRecords(b, 5000)
	base := benchRecordsSeed(b, 20000, 99, "held")
	ctx := context.Background()
	for _, held := range []int{0, 20000} {
		for _, m := range []struct {
			name string
			mode int
		}{{"rows", importRowByRow}, {"one-pass", importAuto}, {"rebuild", importRebuild}} {
			b.Run(fmt.Sprintf("held=%d/%s", held, m.name), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					db, err := Open(ctx, filepath.Join(b.TempDir(), "mem.db"), Options{})
					if err != nil {
						b.Fatal(err)
					}
					if held > 0 {
						if _, err := db.Import(ctx, base); err != nil {
							b.Fatal(err)
						}
					}
					db.importMode = m.mode
					b.StartTimer()
					if _, err := db.Import(ctx, batch); err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					db.Close()
					b.StartTimer()
				}
				b.ReportMetric(float64(5000*b.N)/b.Elapsed().Seconds(), "obs/s")
			})
		}
	}
}
