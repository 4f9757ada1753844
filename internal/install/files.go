package install

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/memhq/mem/internal/fsafe"
)

// MaxFileSize bounds the files install reads: agents' settings are small,
// and ~/.claude.json, the largest, holds a few megabytes of history.
const MaxFileSize = 64 << 20

// Read returns the content of the file install edits at path (nil when it
// does not exist). The file must be a regular file, not a link, FIFO or
// device: install writes by renaming over it and would replace a link
// instead of the file it points to. With root set (project scope), the
// folders leading to path must not lead out of root's real path.
func Read(path, root string) ([]byte, error) {
	if err := checkPlace(path, root); err != nil {
		return nil, err
	}
	if _, err := fsafe.CheckTarget(path); err != nil {
		return nil, err
	}
	b, err := fsafe.ReadFile(path, MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// checkPlace refuses a path below root whose nearest existing folder is,
// once every link is resolved, outside root: a repository may ship
// .claude or .opencode as a link to a folder of the user's.
func checkPlace(path, root string) error {
	if root == "" {
		return nil
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	for {
		real, err := filepath.EvalSymlinks(dir)
		if err == nil {
			if !fsafe.Inside(realRoot, real) {
				return &fs.PathError{Op: "refusing", Path: dir, Err: fmt.Errorf("%w: it leads to %s", fsafe.ErrOutside, real)}
			}
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) || filepath.Dir(dir) == dir {
			return err
		}
		if _, lerr := os.Lstat(dir); lerr == nil {
			// It exists but cannot be resolved: a link to nowhere yet,
			// which creating the folders would follow.
			return &fs.PathError{Op: "refusing", Path: dir, Err: fmt.Errorf("%w: it is a link to a place that does not exist", fsafe.ErrOutside)}
		}
		dir = filepath.Dir(dir)
	}
}

// Apply writes a plan read with Read (root as there): the previous file is
// kept as <file>.mem.bak, and the new one is written beside the file and
// renamed over it; none of them is written through a link. It returns the
// backup's path ("" for none).
func Apply(p Plan, root string) (backup string, err error) {
	if err := checkPlace(p.Path, root); err != nil {
		return "", err
	}
	if _, err := fsafe.CheckTarget(p.Path); err != nil {
		return "", err
	}
	if p.Before != nil {
		backup = p.Path + ".mem.bak"
		if err := fsafe.WriteFile(backup, p.Before, 0o600); err != nil {
			return "", fmt.Errorf("backing up %s: %w", p.Path, err)
		}
	}
	if p.After == nil {
		if err := fsafe.Remove(p.Path); err != nil {
			return backup, fmt.Errorf("removing %s: %w", p.Path, err)
		}
		return backup, nil
	}
	if err := os.MkdirAll(filepath.Dir(p.Path), 0o755); err != nil {
		return backup, fmt.Errorf("creating %s: %w", filepath.Dir(p.Path), err)
	}
	// An existing file keeps its permissions: agent files can hold
	// credentials.
	if err := fsafe.WriteFile(p.Path, p.After, 0o644); err != nil {
		return backup, fmt.Errorf("writing %s: %w", p.Path, err)
	}
	return backup, nil
}
