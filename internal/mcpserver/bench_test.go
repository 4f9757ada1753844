package mcpserver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memhq/mem/internal/interchange"
	"github.com/memhq/mem/internal/memory"
)

// benchWords is the vocabulary of the generated memory: words of the kind
// coding sessions are made of.
var benchWords = strings.Fields(`cache retry backoff timeout database migration schema index query
transaction lock deadlock session token auth login refund order payment invoice gateway webhook queue
worker scheduler cron config flag env deploy build test fixture mock benchmark profile memory leak
goroutine channel mutex context cancel deadline http grpc json yaml parser lexer tokenizer compiler
render template layout css button modal form validation error panic crash log metric trace span
kafka redis postgres sqlite fts5 search ranking snippet budget summary prompt hook editor agent
client server handler middleware router endpoint pagination cursor offset limit batch stream upload
download file path permission user role admin tenant billing subscription plan quota rate limiter
encryption hash signature certificate tls proxy dns docker kubernetes helm terraform ci pipeline`)

// benchVocab is benchWords followed by made-up identifiers, 5,000 words in
// all, drawn with a Zipf distribution as the content words of real text are
// (stopwords aside): the most common word is in about a third of the
// observations, the 500th in about 3%, most are rare.
type benchVocab struct {
	words []string
	zipf  *rand.Zipf
}

func newBenchVocab(r *rand.Rand) *benchVocab {
	words := append([]string(nil), benchWords...)
	syll := strings.Fields("ka lo mi ne ru ta vo zi pe sa do fu gi ha je")
	for len(words) < 5000 {
		w := ""
		for range 2 + r.IntN(3) {
			w += syll[r.IntN(len(syll))]
		}
		words = append(words, w)
	}
	r.Shuffle(len(words)-20, func(i, j int) { words[20+i], words[20+j] = words[20+j], words[20+i] })
	return &benchVocab{words: words, zipf: rand.NewZipf(r, 1.1, 50, uint64(len(words)-1))}
}

// sentence makes n words.
func (v *benchVocab) sentence(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = v.words[v.zipf.Uint64()]
	}
	return strings.Join(w, " ")
}

// writeBenchMemory writes n observations of one project, 100 per session, as
// an interchange file.
func writeBenchMemory(tb testing.TB, path string, n int) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	enc := interchange.NewEncoder(f)
	r := rand.New(rand.NewPCG(1, 2))
	v := newBenchVocab(r)
	types := memory.Types()
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		at := start.Add(time.Duration(i) * 5 * time.Minute)
		sid := fmt.Sprintf("bench-%d", i/100)
		if i%100 == 0 {
			s := memory.Session{ID: sid, Project: testProject, Agent: "claude-code", AgentType: "build",
				Cwd: "/repo", StartedAt: at, LastActivityAt: at, Status: memory.StatusEnded, FilesRead: []string{}}
			if err := enc.Encode(memory.Record{Kind: memory.KindSession, Session: &s}); err != nil {
				tb.Fatal(err)
			}
		}
		o := memory.Observation{UUID: uuid.NewString(), SessionID: sid, Project: testProject,
			Type: types[r.IntN(len(types))], Title: v.sentence(8), Narrative: v.sentence(40),
			Facts: []string{v.sentence(6), v.sentence(6)}, Concepts: []string{v.sentence(1), v.sentence(1)},
			FilesRead:     []string{fmt.Sprintf("internal/%s/%s.go", v.sentence(1), v.sentence(1))},
			FilesModified: []string{}, AgentType: "build", CreatedAt: at}
		if err := enc.Encode(memory.Record{Kind: memory.KindObservation, Observation: &o}); err != nil {
			tb.Fatal(err)
		}
	}
	if err := enc.Flush(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkSearch100k measures search over MCP the way an agent meets it: one
// `mem mcp` process on a database of 100,000 observations (imported with
// `mem import`), answering sequential search calls. It reports the median and
// 95th percentile latency of a call and the server's RSS growth. Run it with
// scripts/bench-mcp.
func BenchmarkSearch100k(b *testing.B) {
	n := 100_000
	if s := os.Getenv("MEM_BENCH_OBSERVATIONS"); s != "" {
		fmt.Sscan(s, &n)
	}
	// MEM_BENCH_DIR keeps the generated database between runs.
	dir := os.Getenv("MEM_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	jsonl, db := filepath.Join(dir, "memory.jsonl"), filepath.Join(dir, fmt.Sprintf("mem-%d.db", n))
	if _, err := os.Stat(db); err != nil {
		writeBenchMemory(b, jsonl, n)
		imp := exec.Command(memBin, "import", jsonl)
		imp.Env = append(os.Environ(), "MEM_DB="+db, "HOME="+dir)
		t := time.Now()
		if out, err := imp.CombinedOutput(); err != nil {
			b.Fatalf("mem import: %v\n%s", err, out)
		}
		b.Logf("mem import of %d observations: %v", n, time.Since(t).Round(time.Millisecond))
	}
	cmd := exec.Command(memBin, "mcp")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MEM_DB="+db, "MEM_PROJECT="+testProject, "HOME="+dir)
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()

	// Queries are one to three words, half drawn as the text was (mostly
	// common words), half uniformly from the vocabulary (mostly rare ones).
	qr := rand.New(rand.NewPCG(3, 4))
	v := newBenchVocab(rand.New(rand.NewPCG(1, 2)))
	queries := make([]string, 200)
	for i := range queries {
		w := make([]string, 1+i%3)
		for j := range w {
			if (i+j)%2 == 0 {
				w[j] = v.sentence(1)
			} else {
				w[j] = v.words[qr.IntN(len(v.words))]
			}
		}
		queries[i] = strings.Join(w, " ")
	}
	search := func(i int) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search",
			Arguments: map[string]any{"query": queries[i%len(queries)], "limit": 10}})
		if err != nil {
			b.Fatalf("search %q: %v", queries[i%len(queries)], err)
		}
		if res.IsError {
			b.Fatalf("search %q: %s", queries[i%len(queries)], resultText(res))
		}
	}
	for i := range 50 { // warm up the page cache and the server
		search(i)
	}
	rssBefore := 0
	if runtime.GOOS == "linux" {
		rssBefore = procRSS(cmd.Process.Pid)
	}
	// The server's own cost: fetching five records by id.
	get := make([]time.Duration, 0, 200)
	for i := range 200 {
		t := time.Now()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_observations",
			Arguments: map[string]any{"ids": []int{1 + i, 101 + i, 201 + i, 301 + i, 401 + i}}})
		if err != nil || res.IsError {
			b.Fatalf("get_observations: %v", err)
		}
		get = append(get, time.Since(t))
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		search(i)
		lat = append(lat, time.Since(t))
	}
	b.StopTimer()
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(lat[len(lat)/2]), "ms-p50")
	b.ReportMetric(ms(lat[len(lat)*95/100]), "ms-p95")
	slices.Sort(get)
	b.ReportMetric(ms(get[len(get)/2]), "ms-p50-get")
	if rssBefore > 0 {
		b.ReportMetric(float64(rssBefore)/1024, "MiB-rss-before")
		b.ReportMetric(float64(procRSS(cmd.Process.Pid))/1024, "MiB-rss-after")
	}
}
