package web_test

import (
	"io/fs"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/web"
)

// maxClientBytes bounds the client's JavaScript and CSS before compression:
// the page must load fast on a phone (177 KiB is about 54 KB gzipped).
// What only some pages or some players need (the account page, a replay,
// the dialogs, the settings' look, the sounds, Play now and the ratings)
// loads on demand instead. 168 KiB: the lab's and the player page's
// modules load on demand since, which took about 20 KiB off every page
// (from 177 KiB, 11 bytes under); this leaves the next features some room
// without giving the gain back.
const maxClientBytes = 168 << 10

func readFS(t *testing.T, name string) string {
	t.Helper()
	b, err := fs.ReadFile(web.FS(), name)
	require.NoError(t, err, "read %s", name)
	return string(b)
}

// TestClientFiles checks that every module the page loads is embedded, that
// nothing is fetched from another origin, and that the client stays small:
// what every page loads (index.html's files and app.js's static imports)
// within maxClientBytes. A module imported on demand (the account page's)
// is checked as well, and counted apart.
func TestClientFiles(t *testing.T) {
	index := readFS(t, "index.html")
	files := map[string]string{"index.html": index}
	// Files, not the pages index.html links to (/account).
	for _, m := range regexp.MustCompile(`(?:src|href)="/([^"]+\.[a-z]+)"`).FindAllStringSubmatch(index, -1) {
		files[m[1]] = readFS(t, m[1])
	}
	require.Contains(t, files, "app.js")
	require.Contains(t, files, "style.css")

	// Follow the ES module imports from app.js: the static ones every page
	// loads, and the dynamic import('./x.js') of a page that needs more.
	imports := regexp.MustCompile(`(?m)^import .* from '\./([a-z]+\.js)';`)
	lazyImports := regexp.MustCompile(`import\('\./([a-z]+\.js)'\)`)
	// A style sheet a module links when it needs it ('/dialogs.css').
	lazySheets := regexp.MustCompile(`'/([a-z]+\.css)'`)
	lazy := map[string]bool{}
	for todo := []string{"app.js"}; len(todo) > 0; todo = todo[1:] {
		for _, m := range imports.FindAllStringSubmatch(files[todo[0]], -1) {
			if _, ok := files[m[1]]; !ok {
				files[m[1]] = readFS(t, m[1])
				lazy[m[1]] = lazy[todo[0]]
				todo = append(todo, m[1])
			}
		}
		for _, m := range lazySheets.FindAllStringSubmatch(files[todo[0]], -1) {
			if _, ok := files[m[1]]; !ok {
				files[m[1]] = readFS(t, m[1])
				lazy[m[1]] = true
			}
		}
		for _, m := range lazyImports.FindAllStringSubmatch(files[todo[0]], -1) {
			if _, ok := files[m[1]]; !ok {
				files[m[1]] = readFS(t, m[1])
				lazy[m[1]] = true
				todo = append(todo, m[1])
			}
		}
	}
	require.Contains(t, files, "account.js", "the account page's module")
	require.Contains(t, files, "dialogs.css", "the dialogs' style sheet")

	total, onDemand := 0, 0
	remote := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/`)
	for name, text := range files {
		if strings.HasSuffix(name, ".js") || strings.HasSuffix(name, ".css") {
			if lazy[name] {
				onDemand += len(text)
			} else {
				total += len(text)
			}
		}
		for _, u := range remote.FindAllString(text, -1) {
			if !strings.Contains(u, "www.w3.org/") { // the SVG namespace is a name, not a fetch
				t.Errorf("%s refers to another origin: %s", name, u)
			}
		}
		assert.NotContains(t, text, "innerHTML", "%s: server strings are set as text", name)
	}
	assert.Less(t, total, maxClientBytes, "JavaScript and CSS bytes every page loads")
	t.Logf("client: %d bytes of JavaScript and CSS every page loads, %d more on demand, in %d files", total, onDemand, len(files))
}

// TestErrorSentences checks that each error code of docs/protocol.md has
// its own sentence in the client, so a player never reads a raw code.
func TestErrorSentences(t *testing.T) {
	doc, err := os.ReadFile("../docs/protocol.md")
	require.NoError(t, err)
	section := string(doc)
	start := strings.Index(section, "## Error codes")
	end := strings.Index(section, "## Close codes")
	require.True(t, start >= 0 && end > start, "the protocol has an error table")
	codes := regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\|").FindAllStringSubmatch(section[start:end], -1)
	require.NotEmpty(t, codes)

	game := readFS(t, "game.js")
	for _, c := range codes {
		assert.Regexp(t, `(?m)^\s+`+c[1]+`: '[^']+',$`, game, "a sentence for the error code %s", c[1])
	}
}
