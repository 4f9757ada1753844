// Package fsafe reads and writes the files mem touches outside its database
// (agent settings, backups, .mem, exports, context files) without following
// links into places it must not go and without blocking on FIFOs or devices.
//
// Writes go to a temporary file created exclusively beside the target and are
// renamed over it, so a killed write leaves the previous file whole and a
// target that is a link, FIFO, device or directory is refused, never followed.
// Reads refuse anything but a regular file before reading a byte of it.
package fsafe

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotRegular is the error for a path that is a link, FIFO, device,
// socket or directory where a regular file is expected.
var ErrNotRegular = errors.New("not a regular file")

// ErrOutside is the error for a path whose real location is outside the
// folder it must stay in.
var ErrOutside = errors.New("outside the project")

// ErrTooLarge is the error for a file larger than the caller accepts.
var ErrTooLarge = errors.New("file too large")

// Kind names what a file of mode m is ("a FIFO", "a device", ...), for
// messages about a path that is not a regular file.
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	default:
		return "not a regular file"
	}
}

// notRegular wraps ErrNotRegular with what the path is.
func notRegular(path string, m fs.FileMode) error {
	return &fs.PathError{Op: "refusing", Path: path, Err: fmt.Errorf("%w: it is %s", ErrNotRegular, Kind(m))}
}

// CheckTarget reports whether path may be replaced by a write: it must not
// exist, or be a regular file (not a link to one). It returns the mode of
// the existing file (0 when there is none).
func CheckTarget(path string) (fs.FileMode, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if !fi.Mode().IsRegular() {
		return 0, notRegular(path, fi.Mode())
	}
	return fi.Mode().Perm(), nil
}

// WriteFile replaces path with data: it writes a temporary file created
// exclusively in path's folder, syncs it and renames it over path. A path
// that exists and is not a regular file is refused. An existing file keeps
// its permissions; a new one gets perm.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write is WriteFile for content produced by fill, which writes into the
// temporary file; when fill fails, the target is left as it was.
func Write(path string, perm fs.FileMode, fill func(io.Writer) error) (err error) {
	old, err := CheckTarget(path)
	if err != nil {
		return err
	}
	if old != 0 {
		perm = old
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".mem-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = fill(f); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	// The target may have been swapped for a link since the check; rename
	// replaces the link itself, never what it points to.
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// Remove deletes path if it is a regular file; a link, FIFO, device or
// directory is refused. A missing file is no error.
func Remove(path string) error {
	if _, err := CheckTarget(path); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Shred overwrites a regular file's content with zeros, syncs it and
// deletes it, so that what it held does not stay in blocks the file system
// frees (on file systems that write in place; a copy-on-write or flash
// file system may keep older blocks all the same). A link (symbolic, or a
// junction), FIFO, device or directory is refused, checked on the name
// itself before it is opened and on what was opened after; a missing file
// is no error. A file with other names (hard links) is not overwritten,
// since they would read zeros: only this name is deleted.
func Shred(path string) error {
	li, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !li.Mode().IsRegular() {
		return notRegular(path, li.Mode())
	}
	f, err := openWriteNonBlocking(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if f, err = regular(f, err, path); err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil && !os.SameFile(li, fi) {
		err = &fs.PathError{Op: "refusing", Path: path, Err: errors.New("it was replaced while being opened")}
	}
	if err == nil && links(f, fi) > 1 {
		f.Close()
		return Remove(path)
	}
	if err == nil {
		zeros := make([]byte, 64<<10)
		for left := fi.Size(); left > 0 && err == nil; left -= int64(len(zeros)) {
			_, err = f.Write(zeros[:min(left, int64(len(zeros)))])
		}
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("overwriting %s: %w", path, err)
	}
	return Remove(path)
}

// Open opens path for reading when it is a regular file, without blocking
// on a FIFO or device: those, and directories, are refused. Links are
// followed (settings files are often links into a dotfiles folder); use
// OpenIn to stay inside a folder.
func Open(path string) (*os.File, error) {
	f, err := openNonBlocking(path)
	return regular(f, err, path)
}

// OpenStream opens path for reading when it is a regular file or a pipe: a
// FIFO, or the /dev/fd/N a shell's process substitution passes. Devices,
// sockets and directories are refused. The open never blocks: a FIFO that
// nothing writes to reads as empty, like a closed standard input.
func OpenStream(path string) (*os.File, error) {
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() && fi.Mode()&fs.ModeNamedPipe == 0 {
		f.Close()
		return nil, notRegular(path, fi.Mode())
	}
	return f, nil
}

// OpenAppend opens path for appending, creating it with perm, without
// following a link (on unix) or blocking on a FIFO (opening one with no
// reader fails at once, one with a reader is refused), and refusing
// anything but a regular file.
func OpenAppend(path string, perm fs.FileMode) (*os.File, error) {
	f, err := openAppendNonBlocking(path, perm)
	return regular(f, err, path)
}

// ReadFile reads a regular file of at most max bytes (max <= 0: no limit),
// refusing FIFOs, devices and directories before reading.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, path, max)
}

// ReadFileIn reads the file at rel inside root, only when its real path
// (every link resolved) is inside root's real path: a link that leads out
// of root is refused with ErrOutside. FIFOs, devices and directories are
// refused as by ReadFile; max bounds the size as there.
func ReadFileIn(root, rel string, max int64) ([]byte, error) {
	f, err := OpenIn(root, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, filepath.Join(root, rel), max)
}

// OpenIn opens rel (relative to root, or an absolute path under it) for
// reading, only when its real path is inside root's real path.
func OpenIn(root, rel string) (*os.File, error) {
	if filepath.IsAbs(rel) {
		r, err := filepath.Rel(root, rel)
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return nil, &fs.PathError{Op: "refusing", Path: rel, Err: ErrOutside}
		}
		rel = r
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	full := filepath.Join(realRoot, rel)
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		return nil, err
	}
	if !Inside(realRoot, real) {
		return nil, &fs.PathError{Op: "refusing", Path: filepath.Join(root, rel), Err: ErrOutside}
	}
	f, err := openNonBlocking(real)
	if f, err = regular(f, err, full); err != nil {
		return nil, err
	}
	// The file may have been swapped between the resolution and the open:
	// the opened file must be the one at the resolved path.
	fi, err1 := f.Stat()
	li, err2 := os.Lstat(real)
	if err1 != nil || err2 != nil || !os.SameFile(fi, li) {
		f.Close()
		return nil, &fs.PathError{Op: "refusing", Path: full, Err: ErrOutside}
	}
	return f, nil
}

// StaysIn reports whether path, which need not exist yet, stays inside
// root once the links of the part of it that exists are resolved: what a
// write needs that may create folders on the way. The last element, when
// it exists, is resolved too (a write refuses a link there anyway).
func StaysIn(root, path string) bool {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return false
	}
	rest := ""
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return Inside(realRoot, filepath.Join(real, rest))
		}
		if !errors.Is(err, fs.ErrNotExist) || filepath.Dir(p) == p {
			return false
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

// Inside reports whether path is dir or below it (both cleaned, neither
// resolved: pass real paths).
func Inside(dir, path string) bool {
	r, err := filepath.Rel(dir, path)
	if err != nil {
		return false
	}
	return r == "." || (r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r))
}

// regular passes on what an open returned when it is a regular file, and
// closes and refuses anything else.
func regular(f *os.File, err error, path string) (*os.File, error) {
	if err != nil {
		return nil, err
	}
	if err := checkOpen(f, path); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func checkOpen(f *os.File, path string) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return notRegular(path, fi.Mode())
	}
	return nil
}

func readAll(f *os.File, path string, max int64) ([]byte, error) {
	if max <= 0 {
		return io.ReadAll(f)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, &fs.PathError{Op: "reading", Path: path, Err: fmt.Errorf("%w: more than %d bytes", ErrTooLarge, max)}
	}
	return b, nil
}
