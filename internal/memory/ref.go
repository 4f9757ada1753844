package memory

import (
	"fmt"
	"strconv"
	"strings"
)

// Ref is a record id as users and agents write it: an observation (123,
// #123), a summary (S12, #S12) or a prompt (P7, #P7).
type Ref struct {
	Summary bool
	Prompt  bool
	ID      int64
}

// refsAccepted says which ids ParseRef accepts, for its error.
const refsAccepted = "an observation id (123 or #123), a summary id (S12) or a prompt id (P7)"

func (r Ref) String() string {
	if r.Summary {
		return fmt.Sprintf("S%d", r.ID)
	}
	if r.Prompt {
		return fmt.Sprintf("P%d", r.ID)
	}
	return fmt.Sprintf("#%d", r.ID)
}

// ParseRef parses one id as users and agents write it (surrounding space,
// a leading # and the letter's case do not matter); anything else is a
// ValidationError naming field.
func ParseRef(field, s string) (Ref, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "#")
	var r Ref
	if len(t) > 0 && (t[0] == 'S' || t[0] == 's') {
		r.Summary = true
		t = t[1:]
	} else if len(t) > 0 && (t[0] == 'P' || t[0] == 'p') {
		r.Prompt = true
		t = t[1:]
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 1 {
		return Ref{}, Invalid(field, refsAccepted, s)
	}
	r.ID = n
	return r, nil
}
