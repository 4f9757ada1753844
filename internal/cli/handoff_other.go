//go:build !unix

package cli

import (
	"context"
	"os"
	"os/signal"
)

// handOff runs bin with args as a child on the app's streams and exits with
// its code. An interrupt (Ctrl-C) reaches the child through the console;
// mem waits for it to end.
func (a *App) handOff(ctx context.Context, bin string, args []string) error {
	signal.Ignore(os.Interrupt)
	defer signal.Reset(os.Interrupt)
	return a.handOffChild(ctx, bin, args)
}
