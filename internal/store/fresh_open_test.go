package store

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
)

// TestEightProcessesOpenOneFreshFile starts eight processes (this test
// binary, re-run as a helper) that each open and migrate the same new file;
// they are released together by closing their stdin. All must succeed.
func TestEightProcessesOpenOneFreshFile(t *testing.T) {
	for round := range 3 {
		path := filepath.Join(t.TempDir(), "fresh", "mem.db")
		cmds := make([]*exec.Cmd, 8)
		gates := make([]io.WriteCloser, 8)
		outs := make([][]byte, 8)
		errs := make([]error, 8)
		done := make(chan int)
		for i := range cmds {
			c := exec.Command(os.Args[0], "-test.run=^TestOpenHelperProcess$")
			c.Env = append(os.Environ(), "MEM_STORE_OPEN_HELPER="+path)
			gate, err := c.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			out := &bytes.Buffer{}
			c.Stdout, c.Stderr = out, out
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			cmds[i], gates[i] = c, gate
			go func() {
				errs[i] = c.Wait()
				outs[i] = out.Bytes()
				done <- i
			}()
		}
		for _, g := range gates {
			g.Close()
		}
		for range cmds {
			<-done
		}
		for i := range cmds {
			if errs[i] != nil {
				t.Errorf("round %d, process %d: %v\n%s", round, i, errs[i], outs[i])
			}
		}
		db, err := Open(context.Background(), path, Options{NoMigrate: true})
		if err != nil {
			t.Fatal(err)
		}
		st, err := db.Migrations(context.Background())
		var sessions int
		if err := db.x.Get(&sessions, `SELECT count(*) FROM sessions`); err != nil || sessions != 8 {
			t.Errorf("round %d: %d sessions written (%v), want 8", round, sessions, err)
		}
		db.Close()
		if err != nil || st.Current != st.Latest {
			t.Errorf("round %d: migration state %+v (%v)", round, st, err)
		}
	}
}

// TestOpenHelperProcess is the child of TestEightProcessesOpenOneFreshFile:
// it waits for its stdin to close, then opens the database and writes.
func TestOpenHelperProcess(t *testing.T) {
	path := os.Getenv("MEM_STORE_OPEN_HELPER")
	if path == "" {
		t.Skip("helper process only")
	}
	io.Copy(io.Discard, os.Stdin)
	ctx := context.Background()
	db, err := Open(ctx, path, Options{})
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	defer db.Close()
	s := memory.Session{ID: fmt.Sprintf("p%d", os.Getpid()), Project: "p", StartedAt: time.UnixMilli(1_700_000_000_000)}
	if _, err := db.EnsureSession(ctx, s); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
}
