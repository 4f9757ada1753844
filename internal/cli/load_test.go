package cli

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// underload N ARGS... runs `mem ARGS...` while N other mem processes write
// to the database over and over (mem observe, one session each), every
// writer having written once before it starts. It must exit 0 (with !, not
// 0); its output is logged.
func cmdUnderLoad(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: underload N ARGS...")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	bin, env := scriptMem(ts, "underload")
	mem := func(ctx context.Context, args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = env
		cmd.Dir = ts.MkAbs(".")
		return cmd
	}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var writes, failures atomic.Int64
	var first sync.WaitGroup
	first.Add(n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; ctx.Err() == nil; j++ {
				out, err := mem(ctx, "observe", "--session", fmt.Sprintf("load-%d", i), "--type", "note",
					"--title", fmt.Sprintf("load %d write %d", i, j)).CombinedOutput()
				if err != nil && ctx.Err() == nil {
					failures.Add(1)
					ts.Logf("writer %d: %v: %s", i, err, out)
				}
				writes.Add(1)
				if j == 0 {
					first.Done()
				}
			}
		}()
	}
	first.Wait()
	var stdout, stderr bytes.Buffer
	cmd := mem(context.Background(), args[1:]...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	took := time.Since(start)
	stop()
	wg.Wait()
	ts.Logf("underload: mem %v took %s with %d writers (%d writes, %d failed)\nstdout:\n%sstderr:\n%s",
		args[1:], took, n, writes.Load(), failures.Load(), stdout.String(), stderr.String())
	switch {
	case err != nil && !neg:
		ts.Fatalf("mem %v under load: %v", args[1:], err)
	case err == nil && neg:
		ts.Fatalf("mem %v under load succeeded unexpectedly", args[1:])
	}
}
