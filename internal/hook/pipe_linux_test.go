package hook

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// An event on a pipe crosses it in readChunk pieces; anything else is left
// as it is.
func TestWidenPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	widenPipe(r)
	if size, err := unix.FcntlInt(r.Fd(), unix.F_GETPIPE_SZ, 0); err != nil || size != readChunk {
		t.Fatalf("pipe buffer %d (%v), want %d", size, err, readChunk)
	}
	f, err := os.CreateTemp(t.TempDir(), "event")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	widenPipe(f)
	widenPipe(strings.NewReader("{}"))
}
