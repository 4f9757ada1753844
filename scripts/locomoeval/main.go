// Command locomoeval measures mem's search on a LoCoMo-format file: it loads
// every conversation into a temporary mem database through the store, runs
// every question through the same search as `mem search`, and prints
// recall@5/10/25/50 overall and per category plus query latency. It is run
// by scripts/eval.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/memhq/mem/internal/locomo"
	"github.com/memhq/mem/internal/search"
	"github.com/memhq/mem/internal/store"
)

var ks = []int{5, 10, 25, 50}

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mem-eval:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("mem-eval", flag.ContinueOnError)
	def := search.DefaultRanking()
	r := def
	fs.IntVar(&r.Candidates, "candidates", def.Candidates, "rows scored per kind")
	fs.Float64Var(&r.SessionWeight, "session", def.SessionWeight, "weight of the session summary's score")
	fs.IntVar(&r.SessionExpand, "session-expand", def.SessionExpand, "observations of this many best sessions join the candidates")
	fs.Float64Var(&r.SessionPower, "session-power", def.SessionPower, "power of the normalised session score")
	fs.IntVar(&r.Neighbors, "neighbors", def.Neighbors, "observations before and after a top row that share its score")
	fs.IntVar(&r.NeighborDocs, "neighbor-docs", def.NeighborDocs, "top rows that lend their score to neighbours")
	fs.Float64Var(&r.NeighborWeight, "neighbor-weight", def.NeighborWeight, "weight of a neighbour's score")
	fs.Float64Var(&r.DateWeight, "date", def.DateWeight, "weight of fitting a date named in the query")
	fs.DurationVar(&r.DateWindow, "date-window", def.DateWindow, "distance from a named date that halves its weight")
	fs.IntVar(&r.DateExpand, "date-expand", def.DateExpand, "rows from named dates that join the candidates")
	fs.IntVar(&r.Window, "window", def.Window, "words in more rows than this are common (see search.Ranking.Window)")
	keep := fs.String("db", "", "build the database at this path and keep it (default: a temporary file)")
	misses := fs.Int("misses", 0, "print this many questions whose evidence is not in the first 10 hits (to stderr)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	path := filepath.Join("..", "shared", "eval", "locomo-dev.json")
	if fs.NArg() > 0 {
		path = fs.Arg(0)
	}
	convs, err := locomo.Load(path)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "mem-eval-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	dbPath := filepath.Join(dir, "mem.db")
	if *keep != "" {
		dbPath = *keep
	}
	db, err := store.Open(ctx, dbPath, store.Options{})
	if err != nil {
		return err
	}
	defer db.Close()

	loadStart := time.Now()
	nObs := 0
	for _, c := range convs {
		if _, err := db.Import(ctx, c.Records); err != nil {
			return fmt.Errorf("loading %s: %w", c.ID, err)
		}
		nObs += len(c.Evidence)
	}
	loadTime := time.Since(loadStart)

	type acc struct {
		n   int
		sum [4]float64
	}
	total := acc{}
	byCat := map[int]*acc{}
	var lat []time.Duration
	for _, c := range convs {
		for _, q := range c.Questions {
			start := time.Now()
			hits, err := db.Search(ctx, search.Query{Text: q.Text, Project: "locomo/" + c.ID,
				Kinds: []search.Kind{search.KindObservation}, Limit: 50, Ranking: &r})
			if err != nil {
				return fmt.Errorf("question %q: %w", q.Text, err)
			}
			lat = append(lat, time.Since(start))
			if d := time.Since(start); d > 100*time.Millisecond {
				fmt.Fprintf(os.Stderr, "slow query (%s): %s\n", d.Round(time.Millisecond), q.Text)
			}
			retrieved := make([][]string, 0, len(hits))
			for _, h := range hits {
				retrieved = append(retrieved, c.Evidence[h.Observation.UUID])
			}
			if *misses > 0 && locomo.Recall(q, retrieved, 10) < 1 {
				*misses--
				fmt.Fprintf(os.Stderr, "\nQ(%d) %s  evidence %v\n", q.Category, q.Text, q.Evidence)
				for i, h := range hits {
					if i < 3 {
						fmt.Fprintf(os.Stderr, "   hit %d %v %s\n", i+1, c.Evidence[h.Observation.UUID], h.Title)
					}
				}
			}
			a := byCat[q.Category]
			if a == nil {
				a = &acc{}
				byCat[q.Category] = a
			}
			for i, k := range ks {
				v := locomo.Recall(q, retrieved, k)
				a.sum[i] += v
				total.sum[i] += v
			}
			a.n++
			total.n++
		}
	}
	fmt.Fprintf(out, "LoCoMo retrieval: %s: %d conversations, %d observations, %d questions (loaded in %s)\n",
		filepath.Base(path), len(convs), nObs, total.n, loadTime.Round(time.Millisecond))
	fmt.Fprintf(out, "ranking: %+v\n\n", r)
	fmt.Fprintf(out, "| %-18s | %5s | %5s | %5s | %5s | %5s |\n", "category", "n", "R@5", "R@10", "R@25", "R@50")
	fmt.Fprintf(out, "|%s|%s|%s|%s|%s|%s|\n", "--------------------", "------:", "------:", "------:", "------:", "------:")
	row := func(name string, a acc) {
		fmt.Fprintf(out, "| %-18s | %5d |", name, a.n)
		for i := range ks {
			fmt.Fprintf(out, " %5.1f |", 100*a.sum[i]/float64(max(a.n, 1)))
		}
		fmt.Fprintln(out)
	}
	cats := make([]int, 0, len(byCat))
	for k := range byCat {
		cats = append(cats, k)
	}
	sort.Ints(cats)
	for _, k := range cats {
		row(fmt.Sprintf("%d %s", k, locomo.Categories[k]), *byCat[k])
	}
	row("all", total)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) > 0 {
		fmt.Fprintf(out, "\nquery latency (in process, %d queries): p50 %s, p95 %s, max %s\n", len(lat),
			pct(lat, 50), pct(lat, 95), lat[len(lat)-1].Round(10*time.Microsecond))
	}
	return nil
}

func pct(s []time.Duration, p int) time.Duration {
	return s[(len(s)-1)*p/100].Round(10 * time.Microsecond)
}
