package team_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSyncBench measures sync against a three-node cluster on this machine
// (scripts/bench-sync runs it; it is skipped otherwise): the push and pull
// rates of a large team memory, a new member pulling it whole, and a sync
// of 10 new records. Every time is a whole mem process.
func TestSyncBench(t *testing.T) {
	if os.Getenv("MEM_SYNC_BENCH") == "" {
		t.Skip("SKIPPED: a benchmark; scripts/bench-sync runs it (MEM_SYNC_BENCH=1)")
	}
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("MEM_SYNC_BENCH_N")); err == nil && v > 0 {
		n = v
	}
	c := startCluster(t, 3, "", "")
	a := newMember(t, "a", c, c.urls(c.leader()), "")
	a.run("--project", project, "share")
	a.importObservations(project, "s-big", "big", n)

	// timed runs mem and returns its wall time; cpu adds up the CPU time
	// of the mem processes, which the load of a shared machine stretches
	// less than the wall time.
	cpu := map[string]time.Duration{}
	timed := func(m *member, args ...string) time.Duration {
		start := time.Now()
		ps := m.runState(args...)
		cpu[m.name+" "+args[0]] += ps.UserTime() + ps.SystemTime()
		return time.Since(start)
	}
	push := timed(a, "sync", "--push-only", "--deadline", "10m")
	pushCPU := cpu["a sync"]
	if got := c.count(`SELECT count(*) FROM mem_records WHERE kind = 'observation'`); got != n {
		t.Fatalf("cluster: %d observations after the push, want %d", got, n)
	}
	b := newMember(t, "b", c, c.urls(), "")
	b.run("--project", project, "share")
	pull := timed(b, "sync", "--deadline", "10m")
	pullCPU := cpu["b sync"]
	checkMember(t, b, n, []string{"big"})

	// Sync of 10 new records: a pushes them, b pulls them; medians of 7.
	var pushes, pulls []time.Duration
	for r := 0; r < 7; r++ {
		a.importObservations(project, fmt.Sprintf("s-ten-%d", r), fmt.Sprintf("ten%d", r), 10)
		pushes = append(pushes, timed(a, "sync"))
		pulls = append(pulls, timed(b, "sync"))
	}
	checkMember(t, b, n+70, nil)
	median := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }

	rate := func(d time.Duration) string { return fmt.Sprintf("%.0f records/s", float64(n)/d.Seconds()) }
	t.Logf("3-node rqlite cluster on 127.0.0.1, %d observations, one mem process per step", n)
	t.Logf("| step | wall time | mem CPU time | rate (wall) | goal |")
	t.Logf("|---|---|---|---|---|")
	t.Logf("| push %d (one member) | %.1f s | %.1f s | %s | |", n, push.Seconds(), pushCPU.Seconds(), rate(push))
	t.Logf("| new member pulls %d | %.1f s | %.1f s | %s | < 20 s |", n, pull.Seconds(), pullCPU.Seconds(), rate(pull))
	t.Logf("| sync of 10 new records, pushing member (median of 7) | %d ms | | | < 200 ms |", median(pushes).Milliseconds())
	t.Logf("| sync of 10 new records, pulling member (median of 7) | %d ms | | | < 200 ms |", median(pulls).Milliseconds())
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		t.Logf("load average during the run: %s", strings.TrimSpace(string(load)))
	}
}
