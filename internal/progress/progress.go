// Package progress shows how far long work has come (an import, an export,
// the nightly job, a sync) while a person watches: on a terminal, a bar
// redrawn in place with the count, the rate and the time left; anywhere
// else (a pipe, a log file, a test) nothing, so output meant for files
// stays clean. The bar is vbauerster/mpb's.
package progress

import (
	"io"
	"os"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"
)

// Unit says what a bar counts.
type Unit int

// Units.
const (
	Items Unit = iota // records, sessions: "n / total" and per second
	Bytes             // sizes, and bytes per second
)

// Bar is a progress display; a nil Bar, or one New made for a writer that
// is no terminal, shows nothing.
type Bar struct {
	p    *mpb.Progress
	bar  *mpb.Bar
	done bool
}

// New returns a bar over total units (0 or less when the total is not
// known: the count and rate alone) described by what, drawn on w when w is
// a terminal; otherwise a Bar that shows nothing.
func New(w io.Writer, total int64, what string, unit Unit) *Bar {
	if !IsTerminal(w) {
		return nil
	}
	return draw(w, total, what, unit, mpb.WithRefreshRate(100*time.Millisecond))
}

// draw returns a bar drawn on w whatever w is, redrawn as refresh says.
func draw(w io.Writer, total int64, what string, unit Unit, refresh mpb.ContainerOption) *Bar {
	p := mpb.New(mpb.WithOutput(w), mpb.WithWidth(100), refresh)
	count := decor.CountersNoUnit("%d / %d", decor.WCSyncWidth)
	rate := decor.AverageSpeed(0, "%.0f/s", decor.WCSyncSpace)
	if unit == Bytes {
		count = decor.Counters(decor.SizeB1024(0), "% .1f / % .1f", decor.WCSyncWidth)
		rate = decor.AverageSpeed(decor.SizeB1024(0), "% .1f", decor.WCSyncSpace)
	}
	if total <= 0 {
		count = decor.CurrentNoUnit("%d", decor.WCSyncWidth)
		if unit == Bytes {
			count = decor.Current(decor.SizeB1024(0), "% .1f", decor.WCSyncWidth)
		}
	}
	appended := []decor.Decorator{rate}
	if total > 0 {
		appended = append(appended, decor.Name(" left "), decor.AverageETA(decor.ET_STYLE_GO))
	}
	bar := p.AddBar(max(total, 0),
		mpb.PrependDecorators(decor.Name(what+" ", decor.WC{C: decor.DindentRight}), count),
		mpb.AppendDecorators(appended...),
		mpb.BarRemoveOnComplete(),
	)
	return &Bar{p: p, bar: bar}
}

// IsTerminal reports whether w is a terminal a person reads.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Add counts n more units done.
func (b *Bar) Add(n int64) {
	if b != nil {
		b.bar.IncrInt64(n)
	}
}

// Set says how many units are done in all.
func (b *Bar) Set(n int64) {
	if b != nil {
		b.bar.SetCurrent(n)
	}
}

// Println writes a line above the bar (a warning met on the way); with no
// bar, to nowhere: the caller logs what must not be lost.
func (b *Bar) Println(line string) {
	if b != nil {
		_, _ = b.p.Write([]byte(line + "\n"))
	}
}

// Finish completes the bar, clears it from its line and waits until it is
// drawn no more; again, it does nothing.
func (b *Bar) Finish() {
	if b == nil || b.done {
		return
	}
	b.done = true
	b.bar.SetTotal(-1, true)
	b.p.Wait()
}

// Reader counts what is read through r on b.
func (b *Bar) Reader(r io.Reader) io.Reader {
	if b == nil {
		return r
	}
	pr, err := b.bar.ProxyReader(r)
	if err != nil {
		return r
	}
	return pr
}
