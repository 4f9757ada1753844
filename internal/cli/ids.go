package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/memhq/mem/internal/fsafe"
	"github.com/memhq/mem/internal/privacy"
)

// recordRef is a parsed record id: an observation (123, #123), a summary
// (S12, #S12) or a prompt (P7, #P7).
type recordRef struct {
	Summary bool
	Prompt  bool
	ID      int64
}

func (r recordRef) String() string {
	if r.Summary {
		return fmt.Sprintf("S%d", r.ID)
	}
	if r.Prompt {
		return fmt.Sprintf("P%d", r.ID)
	}
	return fmt.Sprintf("#%d", r.ID)
}

// parseRef parses one id as users and agents write them.
func parseRef(s string) (recordRef, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "#")
	var r recordRef
	if len(t) > 0 && (t[0] == 'S' || t[0] == 's') {
		r.Summary = true
		t = t[1:]
	} else if len(t) > 0 && (t[0] == 'P' || t[0] == 'p') {
		r.Prompt = true
		t = t[1:]
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 1 {
		return recordRef{}, Invalid("id", "an observation id (123 or #123), a summary id (S12) or a prompt id (P7)", s)
	}
	r.ID = n
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
