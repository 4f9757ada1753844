package memory

import (
	"strconv"
	"strings"
	"time"
)

// WhenForms lists what ParseWhen accepts, for help and error messages.
const WhenForms = "an RFC 3339 time, a date (2026-01-31) or a relative age (90m, 36h, 7d, 2w)"

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
		if v, err := strconv.Atoi(s[:n-1]); err == nil && v >= 0 {
			unit := map[byte]time.Duration{'m': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[s[n-1]]
			if unit > 0 {
				return now.Add(-time.Duration(v) * unit), nil
			}
		}
	}
	return time.Time{}, Invalid(field, WhenForms, s)
}
