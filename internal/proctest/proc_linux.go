//go:build linux

package proctest

import (
	"os/exec"
	"syscall"
)

// Detach puts cmd in a process group of its own, which KillGroup kills
// whole, and has the kernel kill it (SIGKILL) when the test binary dies,
// even by a panic or a signal that runs no cleanup.
func Detach(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}

// KillGroup kills (SIGKILL) the process group of a process Detach
// started: the process and whatever it started (nginx's workers). It
// kills nothing when the process has not started.
func KillGroup(cmd *exec.Cmd) {
	if cmd.Process == nil || cmd.Process.Pid <= 0 {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// alive says whether a process of that id exists.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
