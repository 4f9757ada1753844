//go:build unix

package summarize

import (
	"os/exec"
	"syscall"
)

// killGroup runs the command in its own process group and kills the whole
// group on timeout, so a shell's children cannot keep it running.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
