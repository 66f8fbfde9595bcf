//go:build !linux

package pgtest

import (
	"os/exec"
	"syscall"
)

// detach does nothing outside Linux, which alone has a parent-death
// signal: Stop kills the server.
func detach(attr *syscall.SysProcAttr) {}

// killGroup kills the postmaster (SIGKILL) outside Linux.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// alive says a process is alive outside Linux: sweep then leaves every
// directory alone.
func alive(pid int) bool { return true }
