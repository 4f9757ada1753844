//go:build !unix

package fsafe

import "os"

// OpenLock opens (creating it, mode 0600) a file to lock.
func OpenLock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
}
