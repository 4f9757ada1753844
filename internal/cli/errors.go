package cli

import (
	"errors"
	"fmt"

	"github.com/memhq/mem/internal/fsafe"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/store"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitFailure = 1 // something went wrong at run time
	ExitUsage   = 2 // bad usage or bad input; nothing was changed
)

// exitError carries an exit code and an optional message up to Main.
type exitError struct {
	code int
	msg  string
	err  error
}

func (e *exitError) Error() string { return e.msg }
func (e *exitError) Unwrap() error { return e.err }

// UsageErr marks err as bad usage (exit 2).
func UsageErr(err error) error {
	return &exitError{code: ExitUsage, msg: oneLine(err.Error()), err: err}
}

// Invalid reports a bad value of a flag or field: exit 2 with a message that
// names the field and what it accepts.
func Invalid(field, accepted, got string) error {
	return UsageErr(memory.Invalid(field, accepted, got))
}

// unusablePath reports a path given for field that cannot be used, such as a
// FIFO or a device: exit 2, one line naming the field, what it accepts and
// what the path is, the path never shortened.
func unusablePath(field, accepted, path, why string, err error) error {
	return &exitError{code: ExitUsage, msg: oneLine(fmt.Sprintf("%s: must be %s (got %q: %s)", field, accepted, path, why)), err: err}
}

// ExitCode maps an error to mem's exit codes: bad input, unknown ids,
// files that cannot be used as a database and files mem refuses to read or
// write (a link, FIFO or device, a place outside the project, a file too
// large) are usage errors (2); anything else is a run-time failure (1).
func ExitCode(err error) int {
	switch {
	case err == nil:
		return ExitOK
	case memory.IsInvalid(err),
		errors.Is(err, memory.ErrNotFound),
		errors.Is(err, store.ErrNotDatabase),
		errors.Is(err, store.ErrIsDirectory),
		errors.Is(err, store.ErrNewerSchema),
		errors.Is(err, fsafe.ErrNotRegular),
		errors.Is(err, fsafe.ErrOutside),
		errors.Is(err, fsafe.ErrTooLarge):
		return ExitUsage
	}
	var ex *exitError
	if errors.As(err, &ex) {
		return ex.code
	}
	return ExitFailure
}

// notFound builds an unknown-id error.
func notFound(what string) error { return fmt.Errorf("%s: %w", what, memory.ErrNotFound) }
