package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// webManifest is what the test reads of the client's manifest.
type webManifest struct {
	ID              string `json:"id"`
	Name            string `json:"name"`
	ShortName       string `json:"short_name"`
	StartURL        string `json:"start_url"`
	Scope           string `json:"scope"`
	Display         string `json:"display"`
	BackgroundColor string `json:"background_color"`
	ThemeColor      string `json:"theme_color"`
	Dark            struct {
		BackgroundColor string `json:"background_color"`
		ThemeColor      string `json:"theme_color"`
	} `json:"color_scheme_dark"`
	Icons []struct {
		Src     string `json:"src"`
		Sizes   string `json:"sizes"`
		Type    string `json:"type"`
		Purpose string `json:"purpose"`
	} `json:"icons"`
}

// fetched is a file as the page fetches it: its type and text, or an
// image's size.
type fetched struct {
	Status int    `json:"status"`
	Type   string `json:"type"`
	Body   string `json:"body"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}

// fetchIn fetches path from the page, as its scripts would.
func fetchIn(p *page, path string) fetched {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	js := fmt.Sprintf(`(async () => {
		const r = await fetch(%q, {cache: 'no-store'});
		const type = r.headers.get('content-type') || '';
		if (!type.startsWith('image/png')) return JSON.stringify({status: r.status, type, body: await r.text()});
		const img = await createImageBitmap(await r.blob());
		return JSON.stringify({status: r.status, type, width: img.width, height: img.height});
	})()`, path)
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
	require.NoError(p.t, err, "%s: fetch %s", p.name, path)
	var f fetched
	require.NoError(p.t, json.Unmarshal([]byte(s), &f))
	return f
}

// TestInstallable checks that the client installs as an app and opens
// without a network: the manifest (its fields, colours and icons, as the
// page fetches them and as Chromium reads them, with no installability
// error), the service worker that controls the page and caches the app
// shell of this release and nothing live, a reload with the network gone
// that shows the page and says it is offline, then comes back by itself
// with the network, and a new release whose worker and cache replace the
// old.
func TestInstallable(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	rel := startRelease(t, srv.URL())
	b := newBrowser(t)
	// A tab of the browser's own profile: Chromium does not install from
	// an off-the-record context, which every newPage is.
	p := b.open("Ann", b.ctx)
	p.navigate(rel.URL + "/")
	p.wait("the home page", visible("#create-race"))

	// The page names the manifest, its colours and the home screen icon.
	assert.Equal(t, "/manifest.webmanifest", eval[string](p, `document.querySelector('link[rel=manifest]').getAttribute('href')`))
	assert.Equal(t, "/apple-touch-icon.png", eval[string](p, `document.querySelector('link[rel=apple-touch-icon]').getAttribute('href')`))
	light := eval[string](p, `document.querySelector('meta[name=theme-color][media*=light]').content`)
	dark := eval[string](p, `document.querySelector('meta[name=theme-color][media*=dark]').content`)
	// The bar the browser draws is the page's own background, light and dark.
	const bg = `getComputedStyle(document.documentElement).getPropertyValue('--bg').trim()`
	p.colorScheme("light")
	assert.Equal(t, light, eval[string](p, bg), "the light theme colour is the page's --bg")
	p.colorScheme("dark")
	assert.Equal(t, dark, eval[string](p, bg), "the dark theme colour is the page's --bg")
	p.colorScheme("light")

	mf := fetchIn(p, "/manifest.webmanifest")
	require.Equal(t, 200, mf.Status)
	assert.Equal(t, "application/manifest+json", mf.Type)
	var m webManifest
	require.NoError(t, json.Unmarshal([]byte(mf.Body), &m), "the manifest is JSON")
	assert.Equal(t, "Sudoku Arena", m.Name)
	assert.Equal(t, "Sudoku", m.ShortName)
	assert.Equal(t, "/", m.StartURL)
	assert.Equal(t, "/", m.Scope)
	assert.Equal(t, "/", m.ID)
	assert.Equal(t, "standalone", m.Display)
	assert.Equal(t, light, m.ThemeColor, "the light theme colour, as the page's")
	assert.Equal(t, light, m.BackgroundColor)
	assert.Equal(t, dark, m.Dark.ThemeColor, "the dark theme colour, as the page's")
	assert.Equal(t, dark, m.Dark.BackgroundColor)
	icons := map[string]string{}
	for _, ic := range m.Icons {
		icons[ic.Sizes+" "+ic.Purpose+" "+ic.Type] = ic.Src
	}
	for _, want := range []struct {
		key  string
		size int
	}{{"192x192 any image/png", 192}, {"512x512 any image/png", 512}, {"512x512 maskable image/png", 512}} {
		src := icons[want.key]
		require.NotEmpty(t, src, "an icon %s in %v", want.key, icons)
		img := fetchIn(p, src)
		assert.Equal(t, 200, img.Status, src)
		assert.Equal(t, "image/png", img.Type, src)
		assert.Equal(t, [2]int{want.size, want.size}, [2]int{img.Width, img.Height}, "%s is the size it says", src)
	}
	touch := fetchIn(p, "/apple-touch-icon.png")
	assert.Equal(t, [2]int{180, 180}, [2]int{touch.Width, touch.Height}, "the home screen icon of iOS")

	// The service worker: registered, active, and controlling the page
	// after a reload.
	p.wait("a service worker in control", `navigator.serviceWorker.controller !== null`)
	p.run("reload", chromedp.Reload())
	p.wait("the home page again", visible("#create-race"))
	assert.True(t, strings.HasSuffix(eval[string](p, `navigator.serviceWorker.controller?.scriptURL || ''`), "/sw.js"), "the page is controlled by /sw.js")

	// Chromium finds the app installable, with the manifest read whole.
	var installErrs []string
	var manifestErrs []string
	p.run("ask Chromium whether the app installs", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		am, err := cdp.Call(ctx, tg, cdppage.GetAppManifest, cdppage.GetAppManifestParams{})
		if err != nil {
			return err
		}
		for _, e := range am.Errors {
			manifestErrs = append(manifestErrs, e.Message)
		}
		ie, err := cdp.Call(ctx, tg, cdppage.GetInstallabilityErrors, cdp.Empty{})
		if err != nil {
			return err
		}
		for _, e := range ie.InstallabilityErrors {
			installErrs = append(installErrs, e.ErrorID)
		}
		return nil
	}))
	assert.Empty(t, manifestErrs, "Chromium reads the manifest without an error")
	assert.Empty(t, installErrs, "Chromium finds nothing that stops an install")

	// The cache: one, named for this release's build (the worker's BUILD),
	// holding the page and its files, and nothing live.
	sw := fetchIn(p, "/sw.js")
	assert.Equal(t, "text/javascript; charset=utf-8", sw.Type)
	build := between(sw.Body, "const BUILD = '", "'")
	require.Regexp(t, `^[A-Za-z0-9_-]{16}$`, build, "the server wrote the build into the worker")
	assert.Equal(t, []string{"shell-" + build}, evalAwait[[]string](p, `caches.keys()`))
	cached := evalAwait[[]string](p, `caches.open('shell-`+build+`').then(c => c.keys()).then(ks => ks.map(r => new URL(r.url).pathname))`)
	for _, want := range []string{"/", "/app.js", "/style.css", "/manifest.webmanifest", "/icon-192.png", "/pwa.js", "/pwa.css"} {
		assert.Contains(t, cached, want)
	}
	for _, c := range cached {
		assert.False(t, strings.HasPrefix(c, "/api/") || c == "/ws" || c == "/sw.js", "%s is not cached", c)
	}

	// Offline: a reload shows the app shell and says so, on a phone and a
	// laptop, light and dark.
	p.offline(true)
	p.run("reload offline", chromedp.Reload())
	p.wait("the offline page", visible("#offline-page"))
	// The document a reload opens under DevTools' offline still has
	// navigator.onLine true: say it again, as a device without a network
	// tells every page.
	p.offline(true)
	p.wait("the offline page says the device is offline", `navigator.onLine === false && document.querySelector('#offline-page h1').textContent === 'You are offline'`)
	assert.Equal(t, "You are offline", text(p, "#offline-page h1"))
	assert.Contains(t, text(p, "#offline-page p"), "comes back by itself when the network does")
	assert.True(t, eval[bool](p, visible("header .brand")), "the header is there: the shell loaded")
	assert.Equal(t, "offline", eval[string](p, `document.documentElement.dataset.page`))
	p.looks("pwa-offline", nil)

	// The network comes back: the page reloads itself to home.
	p.offline(false)
	p.wait("home, online again", `document.documentElement.dataset.page === 'home' && document.querySelectorAll('#daily [data-level][data-status]').length === 5`)
	assert.False(t, eval[bool](p, visible("#net-off")), "no offline line once online")

	// The network goes while a page is open: a line under the header says
	// so, and goes when it comes back.
	p.offline(true)
	p.wait("the offline line", visible("#net-off"))
	assert.Contains(t, text(p, "#net-off"), "You are offline")
	p.shot("pwa-offline-line")
	p.offline(false)
	p.wait("no offline line", `!(`+visible("#net-off")+`)`)

	// The device online, the server out of reach: the page says so, and
	// comes back by itself (it asks every few seconds) when it answers.
	rel.down.Store(true)
	p.run("reload, the server away", chromedp.Reload())
	p.wait("the page that says the server is away", visible("#offline-page"))
	assert.Equal(t, "Sudoku Arena cannot be reached", text(p, "#offline-page h1"))
	assert.False(t, eval[bool](p, visible("#net-off")), "no offline line: the device is online")
	p.shot("pwa-server-away")
	rel.down.Store(false)
	p.waitFor("home, the server back", `document.documentElement.dataset.page === 'home' && document.querySelectorAll('#daily [data-level][data-status]').length === 5`, 3*waitTimeout/2)

	// A new release: its worker (other bytes, another build) replaces the
	// old, and its cache the old cache.
	next := "next" + build[4:]
	rel.next(build, next)
	p.run("mark the document", evalVoid(`window.__before = true`))
	p.run("look for a new worker", evalVoid(`navigator.serviceWorker.getRegistration().then(r => r.update())`))
	p.wait("the new release's cache alone", `(caches.keys().then(k => { window.__caches = k.join(); }), window.__caches === 'shell-`+next+`')`)
	assert.Equal(t, "shell-"+next, eval[string](p, `window.__caches`))
	assert.True(t, eval[bool](p, `navigator.serviceWorker.controller !== null`), "the new worker controls the page")
	assert.True(t, eval[bool](p, `window.__before === true`), "a page in view is not reloaded under its player")
}

// release is a reverse proxy before the arena that can play a new
// release to the browser: once told, it answers /sw.js with the worker's
// build changed, as a server with other files would. While down, it
// drops every request unanswered, as a server out of reach.
type release struct {
	*httptest.Server
	from, to atomic.Pointer[string]
	down     atomic.Bool
}

// startRelease proxies to target until the test ends.
func startRelease(t *testing.T, target string) *release {
	t.Helper()
	u, err := url.Parse(target)
	require.NoError(t, err)
	r := &release{}
	proxy := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(u)
		pr.Out.Host = pr.In.Host // as the browser named it, as a proxy in front of a site does
		// The worker is asked for whole, so its bytes can be changed: not
		// gzipped, and not as a check of the copy the browser has.
		if pr.Out.URL.Path == "/sw.js" {
			pr.Out.Header.Del("Accept-Encoding")
			pr.Out.Header.Del("If-None-Match")
		}
	}}
	proxy.ModifyResponse = func(resp *http.Response) error {
		from, to := r.from.Load(), r.to.Load()
		if resp.Request.URL.Path != "/sw.js" || from == nil || resp.StatusCode != http.StatusOK {
			return nil
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		body = bytes.ReplaceAll(body, []byte(*from), []byte(*to))
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
		resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
		resp.Header.Del("Content-Encoding")
		resp.Header.Del("ETag")
		return nil
	}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if r.down.Load() {
			panic(http.ErrAbortHandler) // the connection closes with no answer
		}
		proxy.ServeHTTP(w, req)
	}))
	t.Cleanup(r.Close)
	return r
}

// next makes the worker's build to from now on, where it was from.
func (r *release) next(from, to string) {
	r.from.Store(&from)
	r.to.Store(&to)
}

// looks saves screenshots of the page as name on a phone (390x844) and a
// laptop (1280x800), light and dark, then sets the laptop's light look
// back; redo, if set, runs before each, for what is drawn in the look of
// the moment.
func (p *page) looks(name string, redo func()) {
	p.t.Helper()
	for _, v := range []struct {
		name   string
		w, h   int64
		mobile bool
	}{{"phone", 390, 844, true}, {"desktop", 1280, 800, false}} {
		p.viewport(v.w, v.h, v.mobile)
		for _, scheme := range []string{"light", "dark"} {
			p.colorScheme(scheme)
			if redo != nil {
				redo()
			}
			p.shot(name + "-" + v.name + "-" + scheme)
		}
	}
	p.viewport(1280, 800, false)
	p.colorScheme("light")
}

// evalAwait is the value of a JavaScript expression that is a promise.
func evalAwait[T any](p *page, expr string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	require.NoError(p.t, err, "%s: evaluate %s", p.name, expr)
	return v
}

// between is the text of s between the first from and the to after it.
func between(s, from, to string) string {
	_, after, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(after, to)
	return v
}
