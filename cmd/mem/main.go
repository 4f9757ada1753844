// Command mem is a persistent memory engine for AI coding agents.
package main

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/memhq/mem/internal/cli"
)

// hookGCPercent is the garbage collector's pace in a hook process. A hook
// lives for a few milliseconds and allocates a few MiB, a session start's
// block about 4: at the default pace of 100 the first collection starts at
// 4 MiB, and collecting a heap about to be thrown away with the process cost
// a session start about 1 ms of its 16 ms of CPU (perf; paired runs: 0.93 of
// the CPU at 400). At 400 the first starts at 16 MiB; a large event is still
// collected, at five times its live heap.
const hookGCPercent = 400

// hookProcs is the number of threads running Go code in a hook process. A
// hook's work is one goroutine's at a time (decode, hold, one transaction,
// reply); with a P per core the scheduler's idle threads spun up and down
// around every system call and channel hand-off for nothing. At one, paired
// runs on the bench's 100k database used 0.89 of the CPU on a Stop and 0.90
// on an Edit, and replied in 0.95 and 0.94 of the time.
const hookProcs = 1

func main() {
	if cli.IsHook(os.Args[1:]) {
		debug.SetGCPercent(hookGCPercent)
		runtime.GOMAXPROCS(hookProcs)
	}
	app := cli.NewApp(os.Stdin, os.Stdout, os.Stderr)
	os.Exit(cli.Main(context.Background(), app, os.Args[1:]))
}
