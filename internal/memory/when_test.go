package memory

import (
	"strings"
	"testing"
	"time"
)

func TestParseWhen(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Time
		bad  bool
	}{
		{in: "", want: time.Time{}},
		{in: "2026-01-31", want: time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)},
		{in: "2026-01-31T08:30:00Z", want: time.Date(2026, 1, 31, 8, 30, 0, 0, time.UTC)},
		{in: "2026-01-31 08:30", want: time.Date(2026, 1, 31, 8, 30, 0, 0, time.UTC)},
		{in: "7d", want: now.Add(-7 * 24 * time.Hour)},
		{in: " 2w ", want: now.Add(-14 * 24 * time.Hour)},
		{in: "90m", want: now.Add(-90 * time.Minute)},
		{in: "yesterday", bad: true},
		{in: "-3d", bad: true},
		{in: "5y", bad: true},
		// Ages up to 100 years; beyond, the refusal names the limit (an
		// age past 292 years used to wrap into the future).
		{in: "5214w", want: now.Add(-5214 * 7 * 24 * time.Hour)},
		{in: "36500d", want: now.Add(-36500 * 24 * time.Hour)},
		{in: "5215w", bad: true},
		{in: "15250w", bad: true},
		{in: "15260w", bad: true},
		{in: "52560001m", bad: true},
		{in: "99999999999999999999d", bad: true},
	} {
		got, err := ParseWhen("since", tc.in, now)
		if tc.bad {
			if !IsInvalid(err) || strings.HasSuffix(tc.in, "w") && !strings.Contains(err.Error(), "at most 100 years") {
				t.Errorf("ParseWhen(%q) = %v, %v; want a validation error", tc.in, got, err)
			}
			continue
		}
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("ParseWhen(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}
