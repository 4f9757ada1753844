//go:build !unix

package fsafe

import "os"

// openNonBlocking opens path read-only; systems without FIFOs in the file
// system need no flag.
func openNonBlocking(path string) (*os.File, error) {
	return os.Open(path)
}

func syncDir(string) {}
