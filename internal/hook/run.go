package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/memhq/mem/internal/agent"
	"github.com/memhq/mem/internal/fsafe"
	"github.com/memhq/mem/internal/privacy"
	"github.com/memhq/mem/internal/termsafe"
)

// SettleFor is how long a hook whose deadline passed still waits for its
// event to be recorded or spooled (Handler.Settle), having replied nothing:
// on a machine too loaded to run it in time, the editor waits a little
// longer rather than lose the event. With a long deadline it is shorter,
// so that the two stay half a second under agent.EditorTimeout.
const SettleFor = 2500 * time.Millisecond

// Runner runs one hook invocation: read the event, handle it, write the
// reply. It never fails: every problem is logged and the editor gets a
// valid reply or nothing, within the deadline.
type Runner struct {
	Adapter  Adapter
	Handler  *Handler
	Deadline time.Duration
	Getenv   func(string) string
	Log      *Logger
	// Started is when the process started; the deadline counts from it.
	Started time.Time
	// Replied, when set, is called with the event once the reply is out
	// (for work that must stay off the hook's hot path).
	Replied func(Event)
}

type outcome struct {
	ev    Event
	reply []byte
	err   error
}

// Run reads the event from in and writes the reply to out. It reports
// whether the handling finished (false when the deadline cut it short).
func (r *Runner) Run(ctx context.Context, in io.Reader, out io.Writer) bool {
	start := r.Started
	if start.IsZero() {
		start = time.Now()
	}
	ctx, cancel := context.WithDeadline(ctx, start.Add(r.Deadline))
	defer cancel()
	done := make(chan outcome, 1)
	settled := r.Handler.settling()
	go func() {
		reserveStack(0)
		var o outcome
		defer func() {
			if p := recover(); p != nil {
				o = outcome{ev: o.ev, err: fmt.Errorf("panic: %v\n%s", p, debug.Stack())}
			}
			settled()
			done <- o
		}()
		o = r.handle(ctx, in, settled)
	}()
	select {
	case o := <-done:
		if o.ev.Agent == "" {
			o.ev.Agent = r.Adapter.Agent()
		}
		if o.err != nil {
			r.Log.Printf(o.ev, "%v", o.err)
		}
		if ctx.Err() != nil && len(o.reply) > 0 {
			// It finished, but too late to be of use: nothing rather than a late answer.
			r.Log.Printf(o.ev, "answered after the deadline of %s: reply dropped", r.Deadline)
			return true
		}
		if len(o.reply) > 0 {
			if _, err := out.Write(append(o.reply, '\n')); err != nil {
				r.Log.Printf(o.ev, "writing the reply: %v", err)
			}
		}
		if r.Replied != nil && o.err == nil {
			r.Replied(o.ev)
		}
		return true
	case <-ctx.Done():
		r.Log.Printf(Event{Agent: r.Adapter.Agent()}, "no answer within the deadline of %s: replied with nothing", r.Deadline)
		settle := max(0, min(SettleFor, agent.EditorTimeout-500*time.Millisecond-r.Deadline))
		if !r.Handler.Settle(settle) {
			r.Log.Printf(Event{Agent: r.Adapter.Agent()}, "event not recorded nor spooled within %s more: lost", settle)
		}
		return false
	}
}

func (r *Runner) handle(ctx context.Context, in io.Reader, settled func()) outcome {
	data, err := readEvent(in)
	if err != nil {
		return outcome{err: fmt.Errorf("reading the event: %w", err)}
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return outcome{err: errors.New("empty event: ignored")}
	}
	ev, err := r.Adapter.Decode(data, r.Getenv)
	if err != nil {
		return outcome{err: fmt.Errorf("decoding the event: %w", err)}
	}
	if ev.Kind == KindIgnored {
		return outcome{ev: ev}
	}
	reply, err := r.Handler.handle(ctx, ev, settled)
	if err != nil {
		// Whatever was done stays done; the reply still goes out if there is one.
		return outcome{ev: ev, reply: r.Adapter.Encode(ev, reply), err: err}
	}
	return outcome{ev: ev, reply: r.Adapter.Encode(ev, reply)}
}

// Logger writes hook problems to stderr and appends them to a log file.
type Logger struct {
	Err  io.Writer
	Path string
	Now  func() time.Time
	mu   sync.Mutex
}

// Printf logs one line about ev.
func (l *Logger) Printf(ev Event, format string, args ...any) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now
	if l.Now != nil {
		now = l.Now
	}
	// Event fields and messages carry text the editor sent: the line must
	// stay one line of printable text in a terminal and in hook.log.
	where := field(ev.Agent)
	if ev.Name != "" {
		where += " " + field(ev.Name)
	}
	if ev.SessionID != "" {
		where += " session " + field(privacy.SessionKey(ev.SessionID))
	}
	msg := termsafe.Line(strings.TrimRight(fmt.Sprintf(format, args...), "\n"))
	line := fmt.Sprintf("%s mem hook %s: %s\n", now().UTC().Format(time.RFC3339), where, msg)
	if l.Err != nil {
		io.WriteString(l.Err, line)
	}
	if l.Path == "" {
		return
	}
	// Private, as the log is: it names sessions and what went wrong in them.
	if err := os.MkdirAll(filepath.Dir(l.Path), 0o700); err != nil {
		return
	}
	// A FIFO or device named as the log must not block or swallow a hook.
	f, err := fsafe.OpenAppend(l.Path, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	io.WriteString(f, line)
}

// field returns s as is when it is plain (printable, no spaces), quoted
// otherwise.
func field(s string) string {
	for _, r := range s {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) || r == '"' {
			return strconv.Quote(s)
		}
	}
	return s
}
