package cli

import (
	"time"

	"github.com/memhq/mem/internal/memory"
)

// dateForms lists what parseDate accepts, for error messages.
const dateForms = memory.WhenForms

// parseDate reads a point in time (see memory.ParseWhen); a bad value is a
// usage error.
func parseDate(field, s string, now time.Time) (time.Time, error) {
	t, err := memory.ParseWhen(field, s, now)
	if err != nil {
		return time.Time{}, UsageErr(err)
	}
	return t, nil
}
