// Package proctest is what the test harnesses that start processes
// (internal/arenatest, store/pgtest) share so that a failing, panicking or
// killed test leaves nothing behind: children in a process group of their
// own that die with the test binary (Detach, KillGroup), and temporary
// folders that name their owner, swept at the next start once that owner
// is gone (MkdirTemp). It is for tests only.
package proctest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ownerFile, in a folder MkdirTemp made, holds the process id of the test
// binary that made it.
const ownerFile = "owner.pid"

// MkdirTemp makes a temporary folder named pattern plus a random suffix,
// owned by this process, after removing the folders of that pattern whose
// owner is gone without its cleanup (a panic, a test timeout, a kill): the
// processes in them died with it (Detach), their files did not.
func MkdirTemp(pattern string) (string, error) {
	Sweep(pattern)
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", fmt.Errorf("temporary folder: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("temporary folder: %w", err)
	}
	return dir, nil
}

// Sweep removes the folders of pattern under the temporary directory whose
// owner process is gone. A folder with no owner file is being made, or is
// not one of MkdirTemp's, and is left.
func Sweep(pattern string) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), pattern+"*"))
	for _, dir := range dirs {
		raw, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
		if err != nil || pid == os.Getpid() || alive(pid) {
			continue
		}
		os.RemoveAll(dir)
	}
}
