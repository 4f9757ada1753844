package fsafe

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
)

// Shared is the part of a file's permissions that lets other users in:
// any bit for the group or for others.
const Shared fs.FileMode = 0o077

// Loose reports the permissions of path when other users may read, write
// or enter it (a bit of Shared is set); a missing path, a link (not
// followed) and any path on Windows, whose modes say nothing of other
// users, are not loose.
func Loose(path string) (fs.FileMode, bool) {
	if runtime.GOOS == "windows" {
		return 0, false
	}
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink != 0 {
		return 0, false
	}
	return fi.Mode().Perm(), fi.Mode().Perm()&Shared != 0
}

// MakePrivate takes from path the permissions other users have (Shared),
// keeping its owner's, when it is loose (see Loose). It reports the mode
// path had when it changed it. Only the owner (or root) may change a
// file's mode: for another user's file it fails with fs.ErrPermission.
func MakePrivate(path string) (was fs.FileMode, changed bool, err error) {
	was, loose := Loose(path)
	if !loose {
		return was, false, nil
	}
	if err := os.Chmod(path, was&^Shared); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return was, false, nil
		}
		return was, false, fmt.Errorf("making %s private: %w", path, err)
	}
	return was, true, nil
}

// CreatePrivate creates path as an empty file only its owner may read and
// write (0600 whatever the umask), unless something is there already.
func CreatePrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return f.Close()
}
