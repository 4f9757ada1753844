//go:build unix

package store

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestOpenRefusesFIFOsAndDevices: a FIFO (whose open waits for a writer
// forever), a socket or a device as the database is refused at once as not
// a database.
func TestOpenRefusesFIFOsAndDevices(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.db")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	sock := filepath.Join(dir, "sock.db")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, path := range []string{fifo, sock, "/dev/null", "/dev/zero"} {
		done := make(chan error, 1)
		go func() {
			db, err := Open(context.Background(), path, Options{})
			if err == nil {
				db.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotDatabase) {
				t.Errorf("Open(%s): %v, want %v", path, err, ErrNotDatabase)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("Open(%s): still opening after 5s", path)
		}
	}
}
