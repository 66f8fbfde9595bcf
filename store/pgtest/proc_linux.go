//go:build linux

package pgtest

import (
	"os/exec"
	"syscall"
)

// detach puts the server in a process group of its own, which killGroup
// kills whole (the postmaster and its backends), and has the kernel kill
// it when the test binary dies.
func detach(attr *syscall.SysProcAttr) {
	attr.Setpgid = true
	attr.Pdeathsig = syscall.SIGKILL
}

// killGroup kills (SIGKILL) the process group of a server detach started.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil && cmd.Process.Pid > 0 {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// alive says whether a process of that id exists.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
