package cli

import (
	"fmt"
	"os"
	"strconv"
	"strings"
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
		return recordRef{}, invalid("id", "an observation id (123 or #123), a summary id (S12) or a prompt id (P7)", s)
	}
	r.ID = n
	return r, nil
}

// readFileArg reads a file named on the command line, reporting a missing or
// unreadable one as bad input.
func readFileArg(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, invalid("file", "a readable file", path)
	}
	return b, nil
}
