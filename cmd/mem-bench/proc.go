package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
)

// run is one finished process: wall time, CPU time (user+sys), peak
// resident memory, exit code and output.
type run struct {
	Wall   time.Duration
	CPU    time.Duration
	MaxRSS int64 // bytes
	Faults int64 // page faults (minor and major): load does not change them
	Code   int
	Stdout []byte
	Stderr []byte
}

// proc describes a process to start.
type proc struct {
	Bin   string
	Args  []string
	Env   []string
	Stdin []byte
	Dir   string
	// Timeout kills the process after this long (0: never); a killed
	// process has exit code -1.
	Timeout time.Duration
}

// start runs p to completion and measures it from the parent's side, so
// the figures include everything the process does: loading the binary,
// opening the database, answering, exiting.
func (p proc) run() (run, error) {
	ctx := context.Background()
	if p.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, p.Bin, p.Args...)
	cmd.Env = p.Env
	cmd.Dir = p.Dir
	if p.Stdin != nil {
		cmd.Stdin = bytes.NewReader(p.Stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	t0 := time.Now()
	err := cmd.Run()
	wall := time.Since(t0)
	r := run{Wall: wall, Stdout: out.Bytes(), Stderr: errb.Bytes()}
	if cmd.ProcessState == nil {
		return r, fmt.Errorf("running %s: %w", p.Bin, err)
	}
	r.Code = cmd.ProcessState.ExitCode()
	r.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.MaxRSS = ru.Maxrss * 1024 // kilobytes on Linux
		r.Faults = ru.Minflt + ru.Majflt
	}
	return r, nil
}

// stats summarises repeated runs.
type stats struct {
	N         int
	P50, P95  time.Duration
	CPU50     time.Duration
	MaxRSS    int64
	Faults50  int64         // page faults, p50
	Out50     int           // bytes written to stdout, p50
	Held      int           // runs whose answer held what the case expects
	Ratio     float64       // p50 of wall time over the paired floor run's
	CPURatio  float64       // the same, of CPU time
	Floor50   time.Duration // p50 of the paired floor runs
	FloorFlt  int64         // page faults of the paired floor runs, p50
	Failures  int
	LastError string
}

func summarise(rs []run) stats {
	s := stats{N: len(rs)}
	walls := make([]time.Duration, 0, len(rs))
	cpus := make([]time.Duration, 0, len(rs))
	outs := make([]int, 0, len(rs))
	for _, r := range rs {
		walls = append(walls, r.Wall)
		cpus = append(cpus, r.CPU)
		outs = append(outs, len(r.Stdout))
		s.MaxRSS = max(s.MaxRSS, r.MaxRSS)
		if r.Code != 0 {
			s.Failures++
			s.LastError = strings.TrimSpace(string(r.Stderr))
		}
	}
	slices.Sort(walls)
	slices.Sort(cpus)
	s.P50, s.P95 = percentile(walls, 50), percentile(walls, 95)
	s.CPU50 = percentile(cpus, 50)
	slices.Sort(outs)
	if len(outs) > 0 {
		s.Out50 = outs[(len(outs)-1)/2]
	}
	s.Faults50 = faults50(rs)
	return s
}

// faults50 is the median page faults of rs.
func faults50(rs []run) int64 {
	if len(rs) == 0 {
		return 0
	}
	f := make([]int64, len(rs))
	for i, r := range rs {
		f[i] = r.Faults
	}
	slices.Sort(f)
	return f[(len(f)-1)/2]
}

// percentile by the nearest-rank method.
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (p*len(sorted)+99)/100 - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// machine describes where the figures were taken.
func machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%s, %d cores, %s, %s/%s", model, runtime.NumCPU(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// loadavg returns the 1-minute load average, which says how much other work
// shared the machine while the figures were taken.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000) }

func kb(b int) string { return fmt.Sprintf("%.1f", float64(b)/1024) }

func mb(b int64) string { return fmt.Sprintf("%.1f", float64(b)/(1<<20)) }
