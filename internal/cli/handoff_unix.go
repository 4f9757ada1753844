//go:build unix

package cli

import (
	"context"
	"fmt"
	"syscall"
)

// handOff runs bin with args in mem's place. When mem speaks through its
// own standard streams, bin replaces this process: same pid, streams and
// signals, and its exit code is mem's. Otherwise (mem called in-process)
// bin runs as a child on the app's streams.
func (a *App) handOff(ctx context.Context, bin string, args []string) error {
	if !a.ownStreams() {
		return a.handOffChild(ctx, bin, args)
	}
	err := syscall.Exec(bin, append([]string{bin}, args...), a.fullEnv(bin))
	return fmt.Errorf("starting %s: %w", bin, err)
}
