// Command searchbench measures `mem search` as a whole process on a
// synthetic database: it generates N observations with a shared coding
// vocabulary (Zipf-distributed, so some words are in many rows), loads them
// with `mem import`, then runs typical 3-8 word queries and a few hard ones
// through the mem binary and prints the median and worst wall times. It is
// run by scripts/bench-search; the official benchmark generator lives
// elsewhere, this one exists to measure search.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/memhq/mem/internal/interchange"
	"github.com/memhq/mem/internal/memory"
)

var (
	components = strings.Fields(`store session hook config parser router cache index migration worker queue handler
		client server token schema plugin scheduler lease summary recall prompt observation search timeline
		importer exporter logger metrics auth billing invoice payment order refund user account webhook
		template renderer budget tokenizer adapter gateway proxy retry backoff lock transaction pool`)
	verbs = strings.Fields(`fix add refactor remove rename migrate retry cache validate parse render split merge
		extract inline document test benchmark profile log trace guard debounce batch stream encode decode
		serialize compress sanitize redact escape normalize dedupe index reindex rollback upgrade`)
	problems = strings.Fields(`timeout deadlock race panic leak regression flake overflow underflow corruption
		starvation contention mismatch drift crash hang stall duplicate truncation injection`)
	adjectives = strings.Fields(`concurrent stale missing invalid slow flaky nested empty partial large legacy
		async immediate deferred cold warm unbounded quadratic global local transient permanent`)
	nouns = strings.Fields(`request response query statement connection file path line column field record
		row table column value key map slice buffer channel goroutine context deadline error message
		event payload header cookie secret env flag option default limit offset cursor page batch`)
	errs = strings.Fields(`SQLITE_BUSY EOF ENOENT EACCES ETIMEDOUT ECONNRESET ErrNotFound ErrClosed`)
	// prose is the everyday vocabulary of engineering notes around the
	// domain words, so that rows share words the way real notes do.
	prose = strings.Fields(`because since instead already still only now then again both either every
		each first last next previous before after during while until unless although however therefore
		works breaks fails passes returns calls uses needs keeps makes takes gives shows finds reads writes
		opens closes starts stops waits blocks holds releases owns shares wraps checks counts sorts filters
		maps joins groups loads saves sends receives accepts rejects allows prevents causes avoids expects
		changes moves copies deletes creates updates replaces restores reverts tries handles reports
		user team review commit branch release deploy build pipeline job step stage environment machine
		disk memory network latency throughput size length count number total share part piece half
		minute second hour day week month version tag note idea plan reason cause effect result outcome
		problem issue bug ticket feature change decision tradeoff option choice approach design pattern
		interface struct method function variable constant package module library dependency vendor
		api endpoint route middleware controller service repository model view component hook state
		thread process signal pipe socket port host address domain certificate key hash checksum salt
		json yaml toml csv xml sql html css markdown regex glob unicode utf8 ascii byte bit word char
		integer float string boolean array list set tree graph node edge heap stack map cursor iterator
		read write open close create drop alter insert select update delete upsert vacuum analyze explain
		docker kubernetes terraform nginx redis postgres sqlite kafka grpc http https tcp udp dns tls ssh
		linux macos windows bash zsh make cmake go rust python node typescript javascript java kotlin swift`)
	types = []memory.Type{memory.TypeDecision, memory.TypeProblem, memory.TypeBugfix, memory.TypeChange,
		memory.TypeDiscovery, memory.TypeFeature, memory.TypeRefactor, memory.TypeNote}
)

type gen struct {
	r    *rand.Rand
	zipf map[int]*rand.Zipf
}

// pick draws from a list with a Zipf skew: the first words are common.
func (g *gen) pick(list []string) string {
	z, ok := g.zipf[len(list)]
	if !ok {
		z = rand.NewZipf(g.r, 1.1, 2, uint64(len(list)-1))
		g.zipf[len(list)] = z
	}
	return list[z.Uint64()]
}

func (g *gen) ident() string {
	a, b := g.pick(verbs), g.pick(components)
	return a + strings.ToUpper(b[:1]) + b[1:]
}

func (g *gen) path() string {
	c := g.pick(components)
	return fmt.Sprintf("internal/%s/%s_%s.go", c, g.pick(components), g.pick(nouns))
}

func (g *gen) sentence(n int) string {
	w := make([]string, 0, n)
	for len(w) < n {
		switch g.r.IntN(12) {
		case 0:
			w = append(w, g.ident())
		case 1:
			w = append(w, g.pick(problems))
		case 2:
			w = append(w, g.pick(adjectives))
		case 3, 4:
			w = append(w, g.pick(nouns))
		case 5:
			w = append(w, g.pick(verbs))
		case 6:
			w = append(w, g.pick(components))
		case 7:
			w = append(w, []string{"the", "a", "in", "of", "to", "with", "when", "after", "on"}[g.r.IntN(9)])
		case 9, 10:
			w = append(w, prose[g.r.IntN(len(prose))])
		default:
			if g.r.IntN(6) == 0 {
				w = append(w, g.pick(errs))
			} else {
				w = append(w, g.pick(nouns))
			}
		}
	}
	return strings.Join(w, " ")
}

func main() {
	n := flag.Int("n", 100000, "observations to generate")
	projects := flag.Int("projects", 4, "projects; the first holds half of the observations")
	dir := flag.String("dir", "", "work folder (default: a new temporary folder, removed at the end)")
	memBin := flag.String("mem", "mem", "the mem binary to measure")
	runs := flag.Int("runs", 5, "runs of each query")
	verbose := flag.Bool("v", false, "print the median of each query")
	flag.Parse()
	if err := run(context.Background(), *n, *projects, *dir, *memBin, *runs, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "mem-searchbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, n, projects int, dir, memBin string, runs int, verbose bool) error {
	if dir == "" {
		d, err := os.MkdirTemp("", "mem-searchbench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	db := filepath.Join(dir, fmt.Sprintf("bench-%d.db", n))
	g := &gen{r: rand.New(rand.NewPCG(1, uint64(n))), zipf: map[int]*rand.Zipf{}}
	if _, err := os.Stat(db); err != nil {
		start := time.Now()
		jsonl := filepath.Join(dir, fmt.Sprintf("bench-%d.jsonl", n))
		if err := generate(g, jsonl, n, projects); err != nil {
			return err
		}
		gen := time.Since(start)
		start = time.Now()
		cmd := exec.CommandContext(ctx, memBin, "--db", db, "import", jsonl)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("mem import: %w", err)
		}
		fi, _ := os.Stat(db)
		fmt.Printf("generated %d observations in %s, imported in %s, database %d MB\n", n,
			gen.Round(time.Millisecond), time.Since(start).Round(time.Millisecond), fi.Size()>>20)
	}
	queries := []string{
		"fix session store timeout",
		"retry backoff for webhook client",
		"SQLITE_BUSY when hooks run concurrent transactions",
		"parseConfig default limit",
		"internal/store/session_request.go",
		"deadlock in queue worker after migration",
		"why did we rename the cache key",
		"invoice refund rounding error in billing",
		"flaky test timeline render",
		"token budget for recall prompt",
		"stale lease scheduler crash",
		"normalize path in importer",
	}
	for i := 0; i < 8; i++ {
		queries = append(queries, g.sentence(3+g.r.IntN(6)))
	}
	hard := []string{
		"the a of to in with",
		"store session config query request response error",
		strings.Repeat("panic: runtime error: index out of range goroutine 1 [running] main.main() /src/internal/store/db.go:12 +0x1d\n", 80),
	}
	var cpu []time.Duration
	measure := func(qs []string) ([]time.Duration, error) {
		var all []time.Duration
		for _, q := range qs {
			var mine []time.Duration
			for i := 0; i < runs; i++ {
				start := time.Now()
				cmd := exec.CommandContext(ctx, memBin, "--db", db, "--project", "bench/p0", "search", q, "--limit", "20")
				cmd.Stdout = nil
				if out, err := cmd.CombinedOutput(); err != nil {
					return nil, fmt.Errorf("mem search %q: %w: %s", q, err, out)
				}
				mine = append(mine, time.Since(start))
				cpu = append(cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
			}
			all = append(all, mine...)
			if verbose {
				sort.Slice(mine, func(i, j int) bool { return mine[i] < mine[j] })
				fmt.Printf("  %8s  %.70q\n", ms(mine[len(mine)/2]), q)
			}
		}
		sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
		return all, nil
	}
	// One untimed run warms the page cache, as a busy agent's machine has it.
	if _, err := measure(queries[:1]); err != nil {
		return err
	}
	cpu = nil
	typical, err := measure(queries)
	if err != nil {
		return err
	}
	sort.Slice(cpu, func(i, j int) bool { return cpu[i] < cpu[j] })
	typicalCPU := cpu[len(cpu)/2]
	worst, err := measure(hard)
	if err != nil {
		return err
	}
	fmt.Printf("n=%d typical (%d queries x %d runs): p50 %s  p95 %s  max %s  (CPU p50 %s)\n", n, len(queries), runs,
		ms(typical[len(typical)/2]), ms(typical[len(typical)*95/100]), ms(typical[len(typical)-1]), ms(typicalCPU))
	fmt.Printf("n=%d hard (common words, stopwords, 8 KB log) : p50 %s  max %s\n", n,
		ms(worst[len(worst)/2]), ms(worst[len(worst)-1]))
	return nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000) }

func generate(g *gen, path string, n, projects int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	enc := interchange.NewEncoder(f)
	start := time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC)
	at := start
	made := 0
	for s := 0; made < n; s++ {
		project := fmt.Sprintf("bench/p%d", 0)
		if s%2 == 1 && projects > 1 {
			project = fmt.Sprintf("bench/p%d", 1+g.r.IntN(projects-1))
		}
		id := fmt.Sprintf("bench-s%d", s)
		at = at.Add(time.Duration(20+g.r.IntN(600)) * time.Minute)
		sess := &memory.Session{ID: id, Project: project, Agent: "claude-code", StartedAt: at, LastActivityAt: at,
			Status: memory.StatusEnded, FilesRead: []string{}}
		if err := enc.Encode(memory.Record{Kind: memory.KindSession, Session: sess}); err != nil {
			return err
		}
		k := 5 + g.r.IntN(30)
		for i := 0; i < k && made < n; i++ {
			made++
			t := at.Add(time.Duration(i) * 2 * time.Minute)
			o := &memory.Observation{
				UUID: fmt.Sprintf("bench-%d", made), SessionID: id, Type: types[g.r.IntN(len(types))],
				Title: g.sentence(6 + g.r.IntN(5)), Subtitle: g.sentence(5), Narrative: g.sentence(20 + g.r.IntN(40)),
				Facts:    []string{g.sentence(8), g.sentence(8)},
				Concepts: []string{g.pick(components), g.pick(problems)}, FilesRead: []string{g.path()},
				FilesModified: []string{g.path()}, CreatedAt: t,
			}
			if err := enc.Encode(memory.Record{Kind: memory.KindObservation, Observation: o}); err != nil {
				return err
			}
		}
		if err := enc.Encode(memory.Record{Kind: memory.KindSummary, Summary: &memory.Summary{
			UUID: id + "-sum", SessionID: id, Request: g.sentence(8), Learned: g.sentence(25), Completed: g.sentence(20),
			Concepts: []string{}, Files: []string{}, CreatedAt: at.Add(time.Hour)}}); err != nil {
			return err
		}
	}
	return enc.Flush()
}
