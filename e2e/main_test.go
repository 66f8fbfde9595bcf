package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// arenaBin is the arena binary TestMain builds; chromium is the browser's
// path, empty when none was found.
var (
	arenaBin string
	chromium string
)

// chromiumMissing is the message of a test that has no browser.
const chromiumMissing = "e2e: Chromium not found; apt-get install chromium, or set E2E_REQUIRED=1 to fail"

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	chromium = findChromium()
	if chromium != "" {
		dir, err := os.MkdirTemp("", "arena-e2e-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "e2e:", err)
			return 1
		}
		defer os.RemoveAll(dir)
		arenaBin = filepath.Join(dir, "arena")
		build := exec.Command("go", "build", "-o", arenaBin, "../cmd/arena")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: build arena:", err)
			return 1
		}
	}
	return m.Run()
}

// findChromium is the browser E2E_CHROMIUM names (a path, for another
// build of Chromium), else Debian's Chromium, else a chromium on PATH.
func findChromium() string {
	if p := os.Getenv("E2E_CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return ""
		}
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// requireChromium skips the test when there is no browser, or fails it when
// E2E_REQUIRED=1 (as in CI, where a skipped browser test would pass
// silently).
func requireChromium(t *testing.T) {
	t.Helper()
	if chromium != "" {
		return
	}
	if os.Getenv("E2E_REQUIRED") == "1" {
		t.Fatal(chromiumMissing)
	}
	t.Skip(chromiumMissing)
}
