//go:build unix

package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/memhq/mem/internal/benchgen"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/recall"
	"github.com/memhq/mem/internal/store"
)

// BenchmarkPages measures each page's server time (handler, checks and
// rendering included) on a generated memory of $MEM_WEB_BENCH_N
// observations (default 100000), kept under the temporary directory
// between runs. scripts/bench-web runs it.
func BenchmarkPages(b *testing.B) {
	n := 100_000
	if s := os.Getenv("MEM_WEB_BENCH_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1000 {
			b.Fatalf("MEM_WEB_BENCH_N: must be a number >= 1000, got %q", s)
		}
	}
	ctx := context.Background()
	path, err := benchDB(ctx, n)
	if err != nil {
		b.Fatal(err)
	}
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	srv, err := New(Options{DB: db, Recall: recall.DefaultSettings(), Token: "t",
		Now: func() time.Time { return benchgen.DefaultEnd }}, testAddr, false)
	if err != nil {
		b.Fatal(err)
	}
	h := srv.Handler()
	key := benchgen.ProjectKey(0)
	ss, err := db.ListSessions(ctx, store.SessionFilter{Project: key, Limit: 1})
	if err != nil || len(ss) == 0 {
		b.Fatalf("no session in %s: %v", key, err)
	}
	obs, err := db.ListObservations(ctx, store.ObservationFilter{Project: key, Limit: 1})
	if err != nil || len(obs) == 0 {
		b.Fatalf("no observation in %s: %v", key, err)
	}
	p := url.QueryEscape(key)
	pages := []struct{ name, target string }{
		{"overview", "/"},
		{"project", "/project?p=" + p},
		{"search-common", "/project?p=" + p + "&q=" + url.QueryEscape(benchgen.CommonWords)},
		{"search-rare", "/project?p=" + p + "&q=" + benchgen.RareWord},
		{"search-filtered", "/project?p=" + p + "&q=error&type=bugfix&type=problem&since=2026-03-01"},
		{"session", "/session?id=" + url.QueryEscape(ss[0].ID)},
		{"observation", fmt.Sprintf("/obs/%d", obs[0].ID)},
		{"agent-start", "/agent?p=" + p},
		{"agent-compact", "/agent?mode=compact&p=" + p + "&session=" + url.QueryEscape(ss[0].ID)},
		{"search-all", "/search?q=error"},
		{"settings", "/settings"},
	}
	for _, pg := range pages {
		b.Run(pg.name, func(b *testing.B) {
			req := httptest.NewRequest("GET", pg.target, nil)
			req.Host = testAddr
			req.AddCookie(&http.Cookie{Name: srv.CookieName(), Value: srv.Token()})
			cpu0 := cpuTime()
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("%s: status %d: %s", pg.target, w.Code, w.Body.String())
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/page")
			// CPU time is what a page costs on a machine others load too.
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/page")
		})
	}
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchDB returns a database of n generated observations, made once and
// kept under the temporary directory.
func benchDB(ctx context.Context, n int) (string, error) {
	path := filepath.Join(os.TempDir(), fmt.Sprintf("mem-web-bench-%d.db", n))
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	db, err := store.Open(ctx, tmp, store.Options{})
	if err != nil {
		return "", err
	}
	var recs []memory.Record
	err = benchgen.Generate(benchgen.Options{Observations: n, Seed: 1}, func(r memory.Record) error {
		recs = append(recs, r)
		return nil
	})
	if err == nil {
		_, err = db.Import(ctx, recs)
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", err
	}
	for _, suffix := range []string{"-wal", "-shm", ".migrate-lock"} {
		_ = os.Remove(tmp + suffix)
	}
	return path, nil
}
