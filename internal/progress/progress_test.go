package progress

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/vbauerster/mpb/v8"
)

// lockedBuffer is a buffer the bar's drawing goroutine and the test share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestQuietWhereNoOneWatches(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf, 10, "importing", Items)
	b.Add(5)
	b.Finish()
	if buf.Len() != 0 {
		t.Fatalf("a bar on a buffer wrote %q", buf.String())
	}
	f, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Fatal("a file is no terminal")
	}
	if got := New(f, 10, "x", Items); got != nil {
		t.Fatal("New made a bar for a file")
	}
}

func TestDrawShowsCountRateAndTimeLeft(t *testing.T) {
	for _, tc := range []struct {
		name  string
		total int64
		unit  Unit
		want  []string
	}{
		{"items", 1000, Items, []string{"importing", "/ 1000", "/s", "left", "a warning on the way\n"}},
		{"bytes", 4 << 20, Bytes, []string{"importing", "MiB", "left"}},
		{"unknown total", 0, Items, []string{"importing", "/s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out lockedBuffer
			redraw := make(chan any)
			b := draw(&out, tc.total, "importing", tc.unit, mpb.WithManualRefresh(redraw))
			step := max(tc.total/10, 100)
			for i := 0; i < 5; i++ {
				b.Add(step)
				redraw <- i // taken when the bar is drawn again
			}
			b.Println("a warning on the way")
			r := b.Reader(strings.NewReader(strings.Repeat("x", 512)))
			if n, _ := io.Copy(io.Discard, r); n != 512 {
				t.Fatalf("read %d bytes through the bar, want 512", n)
			}
			b.Finish()
			b.Finish() // again: nothing
			got := out.String()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("the bar never showed %q:\n%q", w, got)
				}
			}
		})
	}
}
