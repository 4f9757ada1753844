//go:build !linux

package guard

import "time"

func threadCPU() time.Duration { return 0 }
