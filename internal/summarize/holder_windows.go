//go:build windows

package summarize

import (
	"errors"

	"golang.org/x/sys/windows"
)

// processExists opens the process: a pid no process has is refused as an
// invalid parameter, and one that has exited has an exit code other than
// STILL_ACTIVE. Anything else (access denied) counts as alive, as on unix.
func processExists(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return !errors.Is(err, windows.ERROR_INVALID_PARAMETER)
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return true
	}
	return code == stillActive
}

// stillActive is the exit code (STILL_ACTIVE) of a process still running.
const stillActive = 259
