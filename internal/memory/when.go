package memory

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// WhenForms lists what ParseWhen accepts, for help and error messages.
const WhenForms = "an RFC 3339 time, a date (2026-01-31) or a relative age (90m, 36h, 7d, 2w) of at most 100 years"

// MaxAge is the oldest relative age ParseWhen accepts.
const MaxAge = 100 * 365 * 24 * time.Hour

const maxAgeText = "100 years (876000h, 36500d, 5214w)"

// ParseWhen reads a point in time as people and agents write it: RFC 3339, a
// plain date (midnight UTC), or an age before now such as 7d, 2w, 36h or 90m.
// Empty text is the zero time. A bad value is a ValidationError naming field.
func ParseWhen(field, s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02", "2006-01-02T15:04", "2006-01-02 15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	if n := len(s); n >= 2 {
		unit := map[byte]time.Duration{'m': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[s[n-1]]
		if v, err := strconv.ParseUint(s[:n-1], 10, 64); unit > 0 && (err == nil || errors.Is(err, strconv.ErrRange)) {
			// Past 292 years the age would wrap around to a date in the
			// future and silently select nothing.
			if err != nil || v > uint64(MaxAge/unit) {
				return time.Time{}, Invalid(field, "a relative age of at most "+maxAgeText, s)
			}
			return now.Add(-time.Duration(v) * unit), nil
		}
	}
	return time.Time{}, Invalid(field, WhenForms, s)
}
