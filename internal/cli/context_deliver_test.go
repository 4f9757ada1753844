package cli

import (
	"context"
	"testing"
	"time"
)

func TestTimeToDeliver(t *testing.T) {
	tests := []struct {
		name string
		left time.Duration // 0: no deadline
		want bool
	}{
		{"no deadline", 0, true},
		{"plenty left", 2 * time.Second, true},
		{"too close to the deadline", deliverMargin / 2, false},
	}
	for _, tt := range tests {
		ctx := context.Background()
		if tt.left > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, tt.left)
			defer cancel()
		}
		if got := timeToDeliver(ctx); got != tt.want {
			t.Errorf("%s: timeToDeliver = %v, want %v", tt.name, got, tt.want)
		}
	}
}
