package text

import (
	"fmt"
	"strings"
	"time"
)

// Duration writes d as a person reads it, in its two largest units of
// days, hours, minutes and seconds: 7d, 1d 12h, 90m as 1h 30m, 2s; what
// is below a second is dropped unless d is shorter than one (250ms).
func Duration(d time.Duration) string {
	if d < 0 {
		return "-" + Duration(-d)
	}
	if d < time.Second {
		return d.String()
	}
	units := []struct {
		size time.Duration
		name string
	}{{24 * time.Hour, "d"}, {time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}}
	var parts []string
	for _, u := range units {
		if n := d / u.size; n > 0 {
			parts = append(parts, fmt.Sprintf("%d%s", n, u.name))
			d -= n * u.size
		} else if len(parts) > 0 {
			break
		}
		if len(parts) == 2 {
			break
		}
	}
	return strings.Join(parts, " ")
}
