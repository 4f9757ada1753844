package cli

import (
	"errors"
	"io/fs"
	"os"

	"github.com/memhq/mem/internal/fsafe"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/privacy"
)

// parseRef parses one id given on the command line (memory.ParseRef); a
// bad one is bad usage.
func parseRef(s string) (memory.Ref, error) {
	r, err := memory.ParseRef("id", s)
	if err != nil {
		return memory.Ref{}, UsageErr(err)
	}
	return r, nil
}

// openFileArg opens a file named on the command line for reading: a regular
// file or a pipe (process substitution works); a missing or unreadable file,
// a device or a directory is bad input. The open never blocks.
func openFileArg(field, path string) (*os.File, error) {
	f, err := fsafe.OpenStream(path)
	if err != nil {
		why := err.Error()
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			why = pe.Err.Error()
		}
		return nil, unusablePath(field, "a readable file or pipe", path, why, err)
	}
	return f, nil
}

// SessionArg checks a --session value and turns it into the key the session
// is stored under, the one the hooks store it under (privacy.SessionID): a
// command given the id the editor knows finds that session, and neither
// stores nor prints a secret the id holds.
func SessionArg(id *string) error {
	v, err := privacy.GivenSessionID("--session", *id)
	if err != nil {
		return UsageErr(err)
	}
	*id = v
	return nil
}
