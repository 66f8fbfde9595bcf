// Package e2e holds the browser tests of Sudoku Arena: a real `arena serve`
// process on a loopback port with the embedded store, run by
// internal/arenatest as cmd/arena's process tests run it, and Debian's
// headless Chromium driven with chromedp, playing rooms the way people do
// (typing, clicking, reloading, losing the network). It has no code outside
// its tests and nothing imports it.
//
// The tests need Chromium (E2E_CHROMIUM, /usr/bin/chromium or chromium on
// PATH). Without it they skip, unless E2E_REQUIRED=1, which makes a missing
// browser a failure. Screenshots of the pages go to e2e/screenshots/.
package e2e
