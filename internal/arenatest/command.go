package arenatest

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/sudoku-arena/arena/internal/proctest"
)

// Command is exec.Command for a child process of a test (another arena
// command, a tool): it runs in a process group of its own and dies with
// the test binary (see proctest.Detach); its group is killed when it runs past
// within, and when the test ends.
func Command(tb testing.TB, within time.Duration, name string, args ...string) *exec.Cmd {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	cmd := exec.CommandContext(ctx, name, args...)
	proctest.Detach(cmd)
	cmd.Cancel = func() error {
		proctest.KillGroup(cmd)
		return nil
	}
	cmd.WaitDelay = 5 * time.Second
	tb.Cleanup(func() {
		cancel()
		proctest.KillGroup(cmd)
	})
	return cmd
}
