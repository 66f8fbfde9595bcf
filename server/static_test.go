package server

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/web"
)

// testClient is a web client big enough for gzip to pay.
var testClient = fstest.MapFS{
	"index.html":     {Data: []byte("<!doctype html><title>Sudoku Arena</title>" + strings.Repeat("<p>board</p>", 50))},
	"js/app.js":      {Data: []byte("export const app = 1;\n" + strings.Repeat("// the board\n", 50))},
	"css/style.css":  {Data: []byte(":root { color: black; }\n" + strings.Repeat(".cell { color: red; }\n", 50))},
	"icons/icon.png": {Data: []byte("\x89PNG\r\n\x1a\n not really a png")},
	"tiny.js":        {Data: []byte("1")},
}

// staticServer is a real server with only the web client in it: no rooms
// and no store, since only the static routes are asked.
func staticServer(t *testing.T) *httptest.Server {
	t.Helper()
	hs := httptest.NewServer(New(Config{}, nil, nil, testClient, nil).Handler())
	t.Cleanup(hs.Close)
	return hs
}

// get asks for path with the headers (name, value pairs) and reads the
// whole answer.
func get(t *testing.T, hs *httptest.Server, path string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, hs.URL+path, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	// A transport of its own: the default one would ask for gzip and
	// unpack it without saying so.
	tr := &http.Transport{DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	resp, err := (&http.Client{Transport: tr, Timeout: arenatest.HTTPTimeout}).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, body
}

func TestStaticContentTypes(t *testing.T) {
	t.Parallel()
	hs := staticServer(t)
	tests := []struct {
		path, ctype string
		body        []byte
	}{
		{"/", "text/html; charset=utf-8", testClient["index.html"].Data},
		{"/index.html", "text/html; charset=utf-8", testClient["index.html"].Data},
		{"/r/k3m9x2pq", "text/html; charset=utf-8", testClient["index.html"].Data},
		{"/daily/2026-11-22/hard", "text/html; charset=utf-8", testClient["index.html"].Data},
		{"/p/p_q7vmd2xkc9ra", "text/html; charset=utf-8", testClient["index.html"].Data},
		{"/signin", "text/html; charset=utf-8", testClient["index.html"].Data},
		{"/account", "text/html; charset=utf-8", testClient["index.html"].Data},
		{"/js/app.js", "text/javascript; charset=utf-8", testClient["js/app.js"].Data},
		{"/css/style.css", "text/css; charset=utf-8", testClient["css/style.css"].Data},
		{"/icons/icon.png", "image/png", testClient["icons/icon.png"].Data},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			resp, body := get(t, hs, tt.path)
			require.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, tt.ctype, resp.Header.Get("Content-Type"))
			assert.Equal(t, "no-cache", resp.Header.Get("Cache-Control"))
			assert.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"))
			assert.Empty(t, resp.Header.Get("Content-Encoding"))
			assert.Equal(t, tt.body, body)
		})
	}
}

func TestStaticNotFound(t *testing.T) {
	t.Parallel()
	hs := staticServer(t)
	for _, p := range []string{"/nope.js", "/js/", "/js", "/r/", "/r/abc/def", "/js/../secret", "/api/nothing"} {
		resp, _ := get(t, hs, p)
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, p)
	}
}

func TestStaticETag(t *testing.T) {
	t.Parallel()
	hs := staticServer(t)
	resp, _ := get(t, hs, "/js/app.js")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	tag := resp.Header.Get("ETag")
	require.Regexp(t, `^"[A-Za-z0-9_-]{22}"$`, tag, "a strong tag of the content")

	other, _ := get(t, hs, "/css/style.css")
	assert.NotEqual(t, tag, other.Header.Get("ETag"), "another file, another tag")
	again, _ := get(t, hs, "/js/app.js")
	assert.Equal(t, tag, again.Header.Get("ETag"), "the same file, the same tag")

	tests := []struct {
		ifNoneMatch string
		status      int
	}{
		{tag, http.StatusNotModified},
		{"W/" + tag, http.StatusNotModified},
		{`"other", ` + tag, http.StatusNotModified},
		{"*", http.StatusNotModified},
		{`"other"`, http.StatusOK},
		{other.Header.Get("ETag"), http.StatusOK},
	}
	for _, tt := range tests {
		resp, body := get(t, hs, "/js/app.js", "If-None-Match", tt.ifNoneMatch)
		assert.Equal(t, tt.status, resp.StatusCode, tt.ifNoneMatch)
		assert.Equal(t, tag, resp.Header.Get("ETag"), tt.ifNoneMatch)
		if tt.status == http.StatusNotModified {
			assert.Empty(t, body)
		}
	}

	// The share link is index.html, with its tag.
	index, _ := get(t, hs, "/")
	resp, _ = get(t, hs, "/r/k3m9x2pq", "If-None-Match", index.Header.Get("ETag"))
	assert.Equal(t, http.StatusNotModified, resp.StatusCode)
}

func TestStaticGzip(t *testing.T) {
	t.Parallel()
	hs := staticServer(t)
	for _, p := range []string{"/", "/js/app.js", "/css/style.css"} {
		plain, plainBody := get(t, hs, p)
		resp, body := get(t, hs, p, "Accept-Encoding", "br;q=1.0, gzip;q=0.8")
		require.Equal(t, http.StatusOK, resp.StatusCode, p)
		assert.Equal(t, "gzip", resp.Header.Get("Content-Encoding"), p)
		assert.Equal(t, "Accept-Encoding", resp.Header.Get("Vary"), p)
		assert.Equal(t, "Accept-Encoding", plain.Header.Get("Vary"), p)
		assert.Equal(t, plain.Header.Get("Content-Type"), resp.Header.Get("Content-Type"), p)
		assert.Less(t, len(body), len(plainBody), p)
		assert.NotEqual(t, plain.Header.Get("ETag"), resp.Header.Get("ETag"), "each encoding has its own tag")

		zr, err := gzip.NewReader(bytes.NewReader(body))
		require.NoError(t, err, p)
		unpacked, err := io.ReadAll(zr)
		require.NoError(t, err, p)
		assert.Equal(t, plainBody, unpacked, p)

		again, _ := get(t, hs, p, "Accept-Encoding", "gzip", "If-None-Match", resp.Header.Get("ETag"))
		assert.Equal(t, http.StatusNotModified, again.StatusCode, p)
	}

	// Refused gzip, and files too small or already compressed, go as they are.
	for _, tt := range []struct{ path, accept string }{
		{"/js/app.js", "gzip;q=0"},
		{"/js/app.js", "identity"},
		{"/tiny.js", "gzip"},
		{"/icons/icon.png", "gzip"},
	} {
		resp, body := get(t, hs, tt.path, "Accept-Encoding", tt.accept)
		assert.Empty(t, resp.Header.Get("Content-Encoding"), tt)
		assert.Equal(t, testClient[strings.TrimPrefix(tt.path, "/")].Data, body, tt)
	}
}

func TestStaticHead(t *testing.T) {
	t.Parallel()
	hs := staticServer(t)
	resp, err := arenatest.Head(hs.URL + "/js/app.js")
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/javascript; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.NotEmpty(t, resp.Header.Get("ETag"))
}

// TestStaticEmbedded serves the real client: every embedded file loads,
// with a type of its own, and index.html is the page.
func TestStaticEmbedded(t *testing.T) {
	t.Parallel()
	sf, err := newStatic(web.FS())
	require.NoError(t, err)
	require.NotEmpty(t, sf.files)
	assert.Contains(t, string(sf.index.body), "<html")
	for name, f := range sf.files {
		if strings.HasSuffix(name, ".js") {
			assert.Equal(t, "text/javascript; charset=utf-8", f.ctype, name)
		}
		if strings.HasSuffix(name, ".css") {
			assert.Equal(t, "text/css; charset=utf-8", f.ctype, name)
		}
		if strings.HasSuffix(name, ".png") {
			assert.Equal(t, "image/png", f.ctype, name)
		}
	}
	// The installed app's files: the manifest, and the worker with its
	// build filled in.
	require.Contains(t, sf.files, "manifest.webmanifest")
	assert.Equal(t, "application/manifest+json", sf.files["manifest.webmanifest"].ctype)
	require.Contains(t, sf.files, "sw.js")
	assert.NotContains(t, string(sf.files["sw.js"].body), "__BUILD__")
	assert.Regexp(t, `(?m)^const BUILD = '[A-Za-z0-9_-]{16}';$`, string(sf.files["sw.js"].body))
}

func TestStaticNoIndex(t *testing.T) {
	t.Parallel()
	_, err := newStatic(fstest.MapFS{"app.js": {Data: []byte("1")}})
	assert.ErrorContains(t, err, "no index.html")
}

// workerClient is a client with a service worker.
func workerClient(app string) fstest.MapFS {
	return fstest.MapFS{
		"index.html":            {Data: []byte("<!doctype html><title>Sudoku Arena</title>")},
		"app.js":                {Data: []byte(app)},
		"icon-192.png":          {Data: []byte("\x89PNG\r\n\x1a\n not really a png")},
		"manifest.webmanifest":  {Data: []byte(`{"name": "Sudoku Arena"}`)},
		"sw.js":                 {Data: []byte("const BUILD = '__BUILD__';\nconst SHELL = ['__SHELL__'];\n")},
		"lazy/page.js":          {Data: []byte("export const page = 1;")},
		"lazy/page.js.map.json": {Data: []byte("{}")},
	}
}

// workerBuild serves the client and reads its service worker's build and
// shell.
func workerBuild(t *testing.T, client fstest.MapFS) (build string, shell []string) {
	t.Helper()
	hs := httptest.NewServer(New(Config{}, nil, nil, client, nil).Handler())
	t.Cleanup(hs.Close)
	resp, body := get(t, hs, "/sw.js")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/javascript; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.Equal(t, "no-cache", resp.Header.Get("Cache-Control"), "a browser asks for a new worker each time")
	assert.Equal(t, ContentSecurityPolicy, resp.Header.Get("Content-Security-Policy"))
	m := regexp.MustCompile(`^const BUILD = '([A-Za-z0-9_-]{16})';\nconst SHELL = (\[.*\]);\n$`).FindSubmatch(body)
	require.NotNil(t, m, "the worker with its build and shell filled in: %s", body)
	require.NoError(t, json.Unmarshal(m[2], &shell))
	return string(m[1]), shell
}

// TestStaticServiceWorker checks what the server writes into the service
// worker: the build, which changes with any file of the client and only
// then, and the app shell, which is the page and every file but the
// worker, never the API.
func TestStaticServiceWorker(t *testing.T) {
	t.Parallel()
	build, shell := workerBuild(t, workerClient("export const app = 1;"))
	assert.Equal(t, []string{"/", "/app.js", "/icon-192.png", "/lazy/page.js", "/lazy/page.js.map.json", "/manifest.webmanifest"}, shell)

	same, _ := workerBuild(t, workerClient("export const app = 1;"))
	assert.Equal(t, build, same, "the same files, the same build")
	other, _ := workerBuild(t, workerClient("export const app = 2;"))
	assert.NotEqual(t, build, other, "a file changed, a new build")

	// The manifest goes with its own type.
	hs := httptest.NewServer(New(Config{}, nil, nil, workerClient("1"), nil).Handler())
	t.Cleanup(hs.Close)
	resp, body := get(t, hs, "/manifest.webmanifest")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/manifest+json", resp.Header.Get("Content-Type"))
	assert.Equal(t, `{"name": "Sudoku Arena"}`, string(body))

	// A worker without its placeholders is refused at start: it would
	// never change with a release.
	broken := workerClient("1")
	broken["sw.js"] = &fstest.MapFile{Data: []byte("const BUILD = 'dev';")}
	_, err := newStatic(broken)
	assert.ErrorContains(t, err, "sw.js: no '__BUILD__' or ['__SHELL__'] to fill in")
}
