package memory

import "fmt"

// Record kinds of the interchange format.
const (
	KindSession     = "session"
	KindObservation = "observation"
	KindSummary     = "summary"
	KindPrompt      = "prompt"
)

// Record is one line of the interchange format: exactly one of the pointers
// is set, as Kind says. Line is its line number in the file it came from.
type Record struct {
	Line        int
	Kind        string
	Session     *Session
	Observation *Observation
	Summary     *Summary
	Prompt      *Prompt
}

// LineError says which line of an interchange file was refused and why.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }
