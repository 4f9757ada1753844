//go:build !unix

package summarize

import "os/exec"

// killGroup: without process groups, the default (kill the shell) applies.
func killGroup(*exec.Cmd) {}
