package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/memhq/mem/internal/benchgen"
	"github.com/memhq/mem/internal/memory"
)

// benchRecords returns n observations of synthetic memory with their
// sessions, prompts and summaries.
func benchRecords(tb testing.TB, n int) []memory.Record {
	tb.Helper()
	var recs []memory.Record
	err := benchgen.Generate(benchgen.Options{Observations: n, Seed: 7}, func(r memory.Record) error {
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
// sessions, prompts and summaries) into an empty database.
func BenchmarkImport(b *testing.B) {
	recs := benchRecords(b, 5000)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		db, err := Open(ctx, filepath.Join(b.TempDir(), "mem.db"), Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := db.Import(ctx, recs); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(5000*b.N)/b.Elapsed().Seconds(), "obs/s")
}
