package fullcli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memhq/mem/internal/cli"
)

// lockedBuffer is a bytes.Buffer the command writes to while the test reads.
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

// mem web opens the viewer without its token on a command line, where every
// local user reads it (/proc/PID/cmdline): the opener is given the path of a
// page only its user can read, which leads the browser to the URL. A fake
// xdg-open on PATH records what it was given.
func TestWebOpenerGetsNoToken(t *testing.T) {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("the opener is xdg-open on this system only")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	rec := filepath.Join(dir, "rec")
	for _, d := range []string{bin, rec} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	opener := `#!/bin/sh
printf '%s\n' "$@" > '` + rec + `/argv.tmp'
stat -c %a "$1" > '` + rec + `/mode'
stat -c %a "$(dirname "$1")" > '` + rec + `/dirmode'
cat "$1" > '` + rec + `/page'
mv '` + rec + `/argv.tmp' '` + rec + `/argv'
`
	if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte(opener), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	var out, errb lockedBuffer
	app := cli.NewApp(strings.NewReader(""), &out, &errb)
	env := map[string]string{"HOME": dir, "MEM_DB": filepath.Join(dir, "mem.db"), "MEM_PROJECT": "p"}
	app.Getenv = func(k string) string { return env[k] }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int)
	go func() { done <- Main(ctx, app, []string{"web", "--addr", "127.0.0.1:0"}) }()

	var argv []byte
	for deadline := time.Now().Add(30 * time.Second); ; {
		var err error
		if argv, err = os.ReadFile(filepath.Join(rec, "argv")); err == nil {
			break
		}
		select {
		case code := <-done:
			t.Fatalf("mem web exited %d before opening a browser: %s", code, errb.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no browser opened in 30 s; stderr: %s", errb.String())
		}
	}
	url := strings.TrimSpace(strings.TrimPrefix(out.String(), "mem web: "))
	_, token, ok := strings.Cut(url, "token=")
	if !ok || len(token) < 16 {
		t.Fatalf("no token in the printed URL %q", out.String())
	}
	if strings.Contains(string(argv), token) {
		t.Fatalf("the opener's command line carries the token: %q", argv)
	}
	args := strings.Split(strings.TrimSpace(string(argv)), "\n")
	if len(args) != 1 || !filepath.IsAbs(args[0]) {
		t.Fatalf("the opener was given %q, want the path of one page", args)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(rec, name))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	if m := read("mode"); m != "600" {
		t.Errorf("the page is %s, want 600", m)
	}
	if m := read("dirmode"); m != "700" {
		t.Errorf("the page's folder is %s, want 700", m)
	}
	if page := read("page"); !strings.Contains(page, url) {
		t.Errorf("the page does not lead to %s:\n%s", url, page)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("mem web exited %d: %s", code, errb.String())
	}
	if _, err := os.Lstat(args[0]); err == nil {
		t.Errorf("the page %s is still there after mem web stopped", args[0])
	}
}
