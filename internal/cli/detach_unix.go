//go:build unix

package cli

import (
	"os/exec"
	"syscall"
)

// detach makes cmd outlive this process and its process group.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
