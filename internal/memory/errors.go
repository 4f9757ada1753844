package memory

import (
	"errors"
	"fmt"
)

// ErrNotFound is returned when a session, observation or summary does not exist.
var ErrNotFound = errors.New("not found")

// ValidationError says which field of an input is wrong and what is accepted.
// The command line turns it into exit code 2.
type ValidationError struct {
	Field    string // the input field, as the user names it
	Accepted string // what the field accepts
	Got      string // what was given, possibly shortened; empty to omit
}

func (e *ValidationError) Error() string {
	if e.Got == "" {
		return fmt.Sprintf("%s: must be %s", e.Field, e.Accepted)
	}
	return fmt.Sprintf("%s: must be %s (got %q)", e.Field, e.Accepted, shorten(e.Got, 60))
}

// Invalid builds a ValidationError.
func Invalid(field, accepted, got string) error {
	return &ValidationError{Field: field, Accepted: accepted, Got: got}
}

// IsInvalid reports whether err is (or wraps) a ValidationError.
func IsInvalid(err error) bool {
	var v *ValidationError
	return errors.As(err, &v)
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
