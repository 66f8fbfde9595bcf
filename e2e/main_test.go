package e2e

import (
	"os"
	"os/exec"
	"testing"

	"github.com/sudoku-arena/arena/internal/arenatest"
)

// chromium is the browser's path, empty when none was found.
var chromium string

// chromiumMissing is the message of a test that has no browser.
const chromiumMissing = "e2e: Chromium not found; apt-get install chromium, or set E2E_REQUIRED=1 to fail"

// parallel is how many browser tests run at once (unless -parallel says):
// they spend most of their time waiting on the clock, a daily's floor
// above all.
const parallel = 4

// TestMain looks for the browser and lets parallel tests run at once; the
// arena binary is built by the first test that starts a server
// (arenatest), so only when there is a browser, and removed after the
// tests.
func TestMain(m *testing.M) {
	chromium = findChromium()
	arenatest.Parallel(parallel)
	os.Exit(arenatest.Main(m))
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
