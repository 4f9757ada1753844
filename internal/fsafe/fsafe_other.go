//go:build !unix

package fsafe

import "os"

// openNonBlocking opens path read-only; systems without FIFOs in the file
// system need no flag.
func openNonBlocking(path string) (*os.File, error) {
	return os.Open(path)
}

func openAppendNonBlocking(path string, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, perm)
}

func openWriteNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY, 0)
}

func syncDir(string) {}
