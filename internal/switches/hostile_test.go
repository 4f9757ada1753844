//go:build unix

package switches

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/memhq/mem/internal/fsafe"
)

// TestHostileDotMem: a .mem that is a link, a FIFO or a folder is never
// written through, and reading one neither blocks nor reads outside the
// project; the project is then treated as opted out.
func TestHostileDotMem(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(root, outside string) error
		read  error // from ReadFile
	}{
		{"link out", func(root, outside string) error { return os.Symlink(outside, filepath.Join(root, FileName)) }, fsafe.ErrOutside},
		{"fifo", func(root, _ string) error { return syscall.Mkfifo(filepath.Join(root, FileName), 0o644) }, fsafe.ErrNotRegular},
		{"folder", func(root, _ string) error { return os.Mkdir(filepath.Join(root, FileName), 0o755) }, fsafe.ErrNotRegular},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			root, outside := filepath.Join(base, "repo"), filepath.Join(base, ".bashrc")
			if err := os.Mkdir(root, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(outside, []byte("inject = false\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := tc.plant(root, outside); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				if _, err := ReadFile(root); !errors.Is(err, tc.read) {
					t.Errorf("ReadFile: err = %v, want %v", err, tc.read)
				}
				if d := Decide(Settings{Inject: Setting{On: true}, Capture: Setting{On: true}}, root); d.Inject || d.Capture {
					t.Errorf("Decide: %+v, want both off", d)
				}
				for _, on := range []bool{false, true} {
					if _, err := WriteFile(root, on, on); !errors.Is(err, fsafe.ErrNotRegular) {
						t.Errorf("WriteFile(%v): err = %v, want ErrNotRegular", on, err)
					}
				}
			}()
			select {
			case <-done:
			case <-time.After(2 * time.Second):
				t.Fatal("blocked")
			}
			if b, _ := os.ReadFile(outside); string(b) != "inject = false\n" {
				t.Errorf("the file outside is now %q", b)
			}
		})
	}
}
