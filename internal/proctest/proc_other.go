//go:build !linux

package proctest

import "os/exec"

// Detach does nothing outside Linux, which alone has a parent-death
// signal: the test's cleanup kills the process.
func Detach(cmd *exec.Cmd) {}

// KillGroup kills the process (SIGKILL) outside Linux.
func KillGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// alive says a process is alive outside Linux: Sweep then leaves every
// folder alone.
func alive(pid int) bool { return true }
