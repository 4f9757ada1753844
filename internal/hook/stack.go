package hook

// stackReserve is what a hook's two goroutines (the event's and the
// database's, Runner.Run and Handler.recordBy) come to need, SQLite's calls
// included: each grew to 32 KB on a tool call, a Stop and a session start,
// and the database's to 64 KB on a prompt (a uprobe on runtime.copystack).
const stackReserve = 28 << 10

// reserveStack grows the calling goroutine's stack to hold stackReserve at
// once, while it holds a frame or two. Left to grow on demand, a goroutine
// starts at 2 KB and doubles four times on its way down into SQLite, each
// time onto new memory and rewriting every frame it holds. Paired runs on
// the bench's 100k database: 0.89 of a Stop's CPU, 0.91-0.94 of an Edit's,
// 0.93 of a session start's and 0.95 of a prompt's (reserving 60 KB, for
// the prompt's last doubling too, gained nothing).
//
//go:noinline
func reserveStack(i int) byte {
	var b [stackReserve]byte
	b[i%stackReserve] = 1
	return b[(i/2)%stackReserve]
}
