//go:build !unix && !windows

package summarize

// processExists cannot tell here; the lease then ends by expiry.
func processExists(int) bool { return true }
