// Command locomoeval measures mem's search on a LoCoMo-format file: it loads
// every conversation into a temporary mem database through the store, runs
// every question through the same search as `mem search`, and prints
// recall@5/10/25/50 overall and per category, the same for plain bm25, the
// held-out figures of a rotation over the conversations (tune on all but
// one, measure on that one) and query latency. It is run by scripts/eval.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memhq/mem/internal/locomo"
	"github.com/memhq/mem/internal/search"
	"github.com/memhq/mem/internal/store"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mem-eval:", err)
		os.Exit(1)
	}
}

// defaultTune is the grid each fold chooses from: the ranking given, and
// each of these values of one knob at a time.
const defaultTune = "session=0.5,0.9 session-power=1,3 session-expand=1,3 neighbor-weight=0.2,0.4 date=0.3,0.7"

// bindRanking registers the ranking's knobs as flags on fs.
func bindRanking(fs *flag.FlagSet, r *search.Ranking) {
	def := *r
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
}

// variant is a ranking to measure, with the name the tables give it.
type variant struct {
	name string
	r    search.Ranking
}

// tuneVariants returns base and, for each "knob=v1,v2" item of spec, base
// with that knob set to each value.
func tuneVariants(base search.Ranking, spec string) ([]variant, error) {
	out := []variant{{"given", base}}
	for _, item := range strings.Fields(spec) {
		name, values, ok := strings.Cut(item, "=")
		if !ok {
			return nil, fmt.Errorf("-tune: %q is not knob=value,value", item)
		}
		for _, v := range strings.Split(values, ",") {
			r := base
			fs := flag.NewFlagSet("tune", flag.ContinueOnError)
			bindRanking(fs, &r)
			if err := fs.Set(name, v); err != nil {
				return nil, fmt.Errorf("-tune %s: %w", item, err)
			}
			out = append(out, variant{name + "=" + v, r})
		}
	}
	return out, nil
}

// plainBM25 is the baseline: FTS5's bm25 over the question's words OR-ed
// (stopwords removed), equal column weights, nothing else.
func plainBM25() search.Ranking {
	r := search.DefaultRanking()
	for i := range r.Weights {
		r.Weights[i] = 1
	}
	r.SessionWeight, r.SessionExpand, r.SessionPower = 0, 0, 0
	r.Neighbors, r.NeighborDocs, r.NeighborWeight = 0, 0, 0
	r.DateWeight, r.DateExpand = 0, 0
	return r
}

type evaluation struct {
	db    *store.DB
	convs []locomo.Conversation
	qs    []question
	conv  []int // conversation index of each question
	uuids map[int64]string
}

type question struct {
	locomo.Question
	conv int
}

// measure runs every question with ranking r and returns each one's recall
// at locomo.Ks and the query latencies.
func (e *evaluation) measure(ctx context.Context, r search.Ranking, misses int) (locomo.Scores, []time.Duration, error) {
	scores := make(locomo.Scores, len(e.qs))
	lat := make([]time.Duration, 0, len(e.qs))
	for i, q := range e.qs {
		c := e.convs[q.conv]
		start := time.Now()
		hits, err := search.SearchWith(ctx, e.db, search.Query{Text: q.Text, Project: "locomo/" + c.ID,
			Kinds: []search.Kind{search.KindObservation}, Limit: 50}, r)
		if err != nil {
			return nil, nil, fmt.Errorf("question %q: %w", q.Text, err)
		}
		d := time.Since(start)
		lat = append(lat, d)
		if d > 100*time.Millisecond {
			fmt.Fprintf(os.Stderr, "slow query (%s): %s\n", d.Round(time.Millisecond), q.Text)
		}
		retrieved := make([][]string, 0, len(hits))
		for _, h := range hits {
			retrieved = append(retrieved, c.Evidence[h.Observation.UUID])
		}
		if misses > 0 && locomo.Recall(q.Question, retrieved, 10) < 1 {
			misses--
			fmt.Fprintf(os.Stderr, "\nQ(%d) %s  evidence %v\n", q.Category, q.Text, q.Evidence)
			for j, h := range hits {
				if j < 3 {
					fmt.Fprintf(os.Stderr, "   hit %d %v %s\n", j+1, c.Evidence[h.Observation.UUID], h.Title)
				}
			}
		}
		for k, n := range locomo.Ks {
			scores[i][k] = locomo.Recall(q.Question, retrieved, n)
		}
	}
	return scores, lat, nil
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("mem-eval", flag.ContinueOnError)
	r := search.DefaultRanking()
	bindRanking(fs, &r)
	keep := fs.String("db", "", "build the database at this path and keep it (default: a temporary file)")
	misses := fs.Int("misses", 0, "print this many questions whose evidence is not in the first 10 hits (to stderr)")
	tune := fs.String("tune", defaultTune, "grid each fold chooses from on the other conversations: the ranking given plus one knob at a time (knob=v1,v2 ...); empty: no tuning")
	folds := fs.Bool("folds", true, "measure held out: tune on all conversations but one, measure on that one, rotate")
	baseline := fs.Bool("baseline", true, "also measure plain bm25")
	components := fs.Bool("components", true, "measure the ranking's parts added one at a time, per conversation")
	prompt := fs.Bool("prompt", true, "also measure prompt-time context (see prompt.go)")
	promptGrid := fs.String("prompt-grid", "0.35,0.25,0.5", "values of context.min_relevance the prompt-time folds choose from (the first is the default's)")
	memFree := fs.String("memory-free", "", "file of memory-free prompts, one a line (default: the built-in list)")
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
	e := &evaluation{db: db, convs: convs}
	for ci, c := range convs {
		if _, err := db.Import(ctx, c.Records); err != nil {
			return fmt.Errorf("loading %s: %w", c.ID, err)
		}
		nObs += len(c.Evidence)
		for _, q := range c.Questions {
			e.qs = append(e.qs, question{q, ci})
			e.conv = append(e.conv, ci)
		}
	}
	loadTime := time.Since(loadStart)

	scores, lat, err := e.measure(ctx, r, *misses)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "LoCoMo retrieval: %s: %d conversations, %d observations, %d questions (loaded in %s)\n",
		filepath.Base(path), len(convs), nObs, len(e.qs), loadTime.Round(time.Millisecond))
	fmt.Fprintf(out, "ranking: %+v\n\n", r)
	categoryTable(out, e, scores)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) > 0 {
		fmt.Fprintf(out, "\nquery latency (in process, %d queries): p50 %s, p95 %s, max %s\n", len(lat),
			pct(lat, 50), pct(lat, 95), lat[len(lat)-1].Round(10*time.Microsecond))
	}

	var base locomo.Scores
	if *baseline {
		if base, _, err = e.measure(ctx, plainBM25(), 0); err != nil {
			return err
		}
	}
	if *folds {
		if err := e.foldTable(ctx, out, r, scores, base, *tune); err != nil {
			return err
		}
	}
	if def := search.DefaultRanking(); r != def {
		// A ranking other than mem search's: how it does against it, paired
		// by conversation (the rule for keeping a change: the mean move
		// larger than its spread).
		ds, _, err := e.measure(ctx, def, 0)
		if err != nil {
			return err
		}
		var d []float64
		for c := range e.convs {
			one := func(x int) bool { return x == c }
			d = append(d, 100*(locomo.Mean(scores, e.conv, one)[1]-locomo.Mean(ds, e.conv, one)[1]))
		}
		m, sd := locomo.MeanSD(d)
		fmt.Fprintf(out, "\nR@10 of the given ranking minus mem search's default, per conversation: %+.1f ± %.1f (%s)\n", m, sd, fmtList(d))
	}
	if *components {
		if err := e.componentTable(ctx, out, r, scores, base); err != nil {
			return err
		}
	}
	if *prompt {
		var grid []float64
		for _, f := range strings.Split(*promptGrid, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || v < 0 || v > 1 {
				return fmt.Errorf("-prompt-grid: %q is not a number from 0 to 1", f)
			}
			grid = append(grid, v)
		}
		if err := e.promptTime(ctx, out, *memFree, grid); err != nil {
			return err
		}
	}
	return nil
}

// categoryTable prints recall per category and overall.
func categoryTable(out io.Writer, e *evaluation, scores locomo.Scores) {
	fmt.Fprintf(out, "| %-18s | %5s | %5s | %5s | %5s | %5s |\n", "category", "n", "R@5", "R@10", "R@25", "R@50")
	fmt.Fprintf(out, "|%s|%s|%s|%s|%s|%s|\n", "--------------------", "------:", "------:", "------:", "------:", "------:")
	cats := map[int]bool{}
	for _, q := range e.qs {
		cats[q.Category] = true
	}
	keys := make([]int, 0, len(cats))
	for k := range cats {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	row := func(name string, keep func(question) bool) {
		var sum [4]float64
		n := 0
		for i, q := range e.qs {
			if keep(q) {
				for k := range sum {
					sum[k] += scores[i][k]
				}
				n++
			}
		}
		fmt.Fprintf(out, "| %-18s | %5d |", name, n)
		for k := range sum {
			fmt.Fprintf(out, " %5.1f |", 100*sum[k]/float64(max(n, 1)))
		}
		fmt.Fprintln(out)
	}
	for _, k := range keys {
		row(fmt.Sprintf("%d %s", k, locomo.Categories[k]), func(q question) bool { return q.Category == k })
	}
	row("all", func(question) bool { return true })
}

// foldTable measures every variant of the tuning grid, rotates over the
// conversations (choose by recall@10 on the others, measure on the one
// held out) and prints the held-out folds, their mean and spread next to the
// all-in figures and the baseline's.
func (e *evaluation) foldTable(ctx context.Context, out io.Writer, r search.Ranking, given, base locomo.Scores, tune string) error {
	vs, err := tuneVariants(r, tune)
	if err != nil {
		return err
	}
	all := make([]locomo.Scores, len(vs))
	all[0] = given
	for i := 1; i < len(vs); i++ {
		if all[i], _, err = e.measure(ctx, vs[i].r, 0); err != nil {
			return err
		}
	}
	n := len(e.convs)
	folds := locomo.CrossValidate(e.conv, n, all, 1)
	fmt.Fprintf(out, "\nHeld-out folds (%d): each conversation in turn is held out; of %d rankings (the given one, and %s) the one with the best R@10 on the others is measured on it.\n\n",
		n, len(vs), tune)
	fmt.Fprintf(out, "| %-14s | %-22s | %5s | %5s | %5s | %5s |\n", "held out", "chosen on the others", "R@5", "R@10", "R@25", "R@50")
	fmt.Fprintf(out, "|%s|%s|%s|%s|%s|%s|\n", "----------------", "------------------------", "------:", "------:", "------:", "------:")
	for _, f := range folds {
		fmt.Fprintf(out, "| %-14s | %-22s |", e.convs[f.Held].ID, vs[f.Chosen].name)
		for k := range f.Test {
			fmt.Fprintf(out, " %5.1f |", 100*f.Test[k])
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintf(out, "\n| %-44s | %11s | %11s | %11s | %11s |\n", "ranking", "R@5", "R@10", "R@25", "R@50")
	fmt.Fprintf(out, "|%s|%s|%s|%s|%s|\n", strings.Repeat("-", 46), "------------:", "------------:", "------------:", "------------:")
	every := func(int) bool { return true }
	plain := func(name string, v [4]float64) {
		fmt.Fprintf(out, "| %-44s |", name)
		for _, x := range v {
			fmt.Fprintf(out, " %11.1f |", 100*x)
		}
		fmt.Fprintln(out)
	}
	spread := func(name string, folds []locomo.Fold) {
		mean, sd := locomo.Spread(folds)
		fmt.Fprintf(out, "| %-44s |", name)
		for k := range mean {
			fmt.Fprintf(out, " %5.1f ± %3.1f |", 100*mean[k], 100*sd[k])
		}
		fmt.Fprintln(out)
	}
	spread("mem search, held-out fold mean ± sd", folds)
	plain("mem search, all-in (given ranking)", locomo.Mean(given, e.conv, every))
	best := 0
	for i := range all {
		if locomo.Mean(all[i], e.conv, every)[1] > locomo.Mean(all[best], e.conv, every)[1] {
			best = i
		}
	}
	plain("mem search, all-in (best of grid: "+vs[best].name+")", locomo.Mean(all[best], e.conv, every))
	if base != nil {
		spread("plain bm25, fold mean ± sd (nothing to tune)", locomo.CrossValidate(e.conv, n, []locomo.Scores{base}, 1))
		plain("plain bm25, all-in", locomo.Mean(base, e.conv, every))
	}
	// Each variant of the grid on everything, against the given ranking on
	// the same conversations.
	fmt.Fprintf(out, "\nEach ranking of the grid, all-in, and its R@10 minus the given ranking's per conversation (mean ± sd):")
	for i := 1; i < len(vs); i++ {
		var d []float64
		for c := 0; c < n; c++ {
			one := func(x int) bool { return x == c }
			d = append(d, 100*(locomo.Mean(all[i], e.conv, one)[1]-locomo.Mean(given, e.conv, one)[1]))
		}
		m, sd := locomo.MeanSD(d)
		a := locomo.Mean(all[i], e.conv, every)
		fmt.Fprintf(out, "\n  %-20s R@5 %.1f R@10 %.1f  Δ R@10 %+.1f ± %.1f", vs[i].name, 100*a[0], 100*a[1], m, sd)
	}
	fmt.Fprintln(out)
	// Paired: how the held-out result differs from the given ranking's on
	// the same conversation (tuning that only fits noise shows here).
	var d []float64
	for _, f := range folds {
		g := locomo.Mean(given, e.conv, func(c int) bool { return c == f.Held })
		d = append(d, 100*(f.Test[1]-g[1]))
	}
	m, s := locomo.MeanSD(d)
	fmt.Fprintf(out, "\nR@10 held out minus the given ranking on the same conversation: %+.1f ± %.1f (per fold %s)\n", m, s, fmtList(d))
	return nil
}

// componentTable adds the ranking's parts to bm25 one at a time and prints,
// for each step, the all-in recall, the mean over the conversations (each
// one a held-out fold: nothing is tuned here) and how R@10 moved from the
// step before on the same conversations. A part is worth keeping when that
// move is larger than its spread.
func (e *evaluation) componentTable(ctx context.Context, out io.Writer, r search.Ranking, given, base locomo.Scores) error {
	steps := []struct {
		name string
		set  func(*search.Ranking)
	}{
		{"bm25, words OR-ed, title-weighted", func(x *search.Ranking) {
			x.SessionWeight, x.SessionExpand = 0, 0
			x.Neighbors, x.NeighborDocs, x.NeighborWeight = 0, 0, 0
			x.DateWeight, x.DateExpand = 0, 0
		}},
		{"+ session summary score", func(x *search.Ranking) {
			x.SessionWeight, x.SessionPower = r.SessionWeight, r.SessionPower
		}},
		{"+ observations of the best sessions", func(x *search.Ranking) { x.SessionExpand = r.SessionExpand }},
		{"+ neighbours", func(x *search.Ranking) {
			x.Neighbors, x.NeighborDocs, x.NeighborWeight = r.Neighbors, r.NeighborDocs, r.NeighborWeight
		}},
		{"+ dates named in the query (given ranking)", func(x *search.Ranking) {
			x.DateWeight, x.DateExpand = r.DateWeight, r.DateExpand
		}},
	}
	n := len(e.convs)
	perConv := func(s locomo.Scores) []float64 {
		v := make([]float64, n)
		for c := range v {
			v[c] = 100 * locomo.Mean(s, e.conv, func(x int) bool { return x == c })[1]
		}
		return v
	}
	fmt.Fprintf(out, "\nThe ranking's parts, added one at a time (fold mean: the mean over the %d conversations; Δ: R@10 against the row above on the same conversation, mean ± sd).\n\n", n)
	fmt.Fprintf(out, "| %-44s | %5s | %5s | %5s | %5s | %-17s | %-12s |\n", "ranking", "R@5", "R@10", "R@25", "R@50", "R@10 fold mean", "Δ R@10")
	fmt.Fprintf(out, "|%s|------:|------:|------:|------:|%s|%s|\n", strings.Repeat("-", 46), strings.Repeat("-", 19), strings.Repeat("-", 14))
	every := func(int) bool { return true }
	row := func(name string, s locomo.Scores, prev []float64) []float64 {
		v := perConv(s)
		m, sd := locomo.MeanSD(v)
		fmt.Fprintf(out, "| %-44s |", name)
		for _, x := range locomo.Mean(s, e.conv, every) {
			fmt.Fprintf(out, " %5.1f |", 100*x)
		}
		delta := ""
		if prev != nil {
			d := make([]float64, n)
			for i := range d {
				d[i] = v[i] - prev[i]
			}
			dm, ds := locomo.MeanSD(d)
			delta = fmt.Sprintf("%+.1f ± %.1f", dm, ds)
		}
		fmt.Fprintf(out, " %-17s | %-12s |\n", fmt.Sprintf("%.1f ± %.1f", m, sd), delta)
		return v
	}
	if base != nil {
		row("plain bm25 (equal column weights)", base, nil)
	}
	x := r
	var prev []float64
	for i, st := range steps {
		st.set(&x)
		s := given
		if i < len(steps)-1 {
			var err error
			if s, _, err = e.measure(ctx, x, 0); err != nil {
				return err
			}
		}
		prev = row(st.name, s, prev)
	}
	return nil
}

func fmtList(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%+.1f", x)
	}
	return strings.Join(parts, " ")
}

func pct(s []time.Duration, p int) time.Duration {
	return s[(len(s)-1)*p/100].Round(10 * time.Microsecond)
}
