package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/memhq/mem/internal/benchgen"
	"github.com/memhq/mem/internal/interchange"
	"github.com/memhq/mem/internal/memory"
)

// generate writes n observations of synthetic memory as interchange files
// of about shard observations each (whole sessions), named part-0001.jsonl...,
// and returns their paths. One file is all-or-nothing for mem import, so
// shards keep each import's memory bounded at 1M observations.
func generate(dir string, n, shard int, seed uint64) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var (
		paths []string
		f     *os.File
		enc   *interchange.Encoder
		inCur int
	)
	closeCur := func() error {
		if f == nil {
			return nil
		}
		if err := enc.Flush(); err != nil {
			return err
		}
		return f.Close()
	}
	err := benchgen.Generate(benchgen.Options{Observations: n, Seed: seed}, func(r memory.Record) error {
		if r.Kind == memory.KindSession && (f == nil || inCur >= shard) {
			if err := closeCur(); err != nil {
				return err
			}
			p := filepath.Join(dir, fmt.Sprintf("part-%04d.jsonl", len(paths)+1))
			var err error
			if f, err = os.Create(p); err != nil {
				return err
			}
			enc = interchange.NewEncoder(f)
			paths = append(paths, p)
			inCur = 0
		}
		if r.Kind == memory.KindObservation {
			inCur++
		}
		return enc.Encode(r)
	})
	if err != nil {
		return nil, fmt.Errorf("generating %d observations: %w", n, err)
	}
	return paths, closeCur()
}
