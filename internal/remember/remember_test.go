package remember

import (
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/config"
)

func TestNewRefusesAMissingDependency(t *testing.T) {
	cfg := &config.Config{Settings: config.Defaults(config.Dirs{Data: t.TempDir()})}
	for _, tc := range []struct {
		name string
		cfg  *config.Config
		now  func() time.Time
		want string
	}{
		{"no configuration", nil, time.Now, "no configuration"},
		{"no clock", cfg, nil, "no clock"},
		{"both", cfg, time.Now, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := New(tc.cfg, tc.now)
			if tc.want == "" {
				if err != nil || e == nil {
					t.Fatalf("New: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New: %v, want an error saying %q", err, tc.want)
			}
		})
	}
}
