package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// screenshotDir is where the tests save their PNGs (gitignored; README.md
// names it). Failing tests save theirs there too, as fail-TEST-PAGE.png.
const screenshotDir = "screenshots"

// waitTimeout bounds every wait for the page; a browser test that hangs
// tells nothing.
const waitTimeout = 15 * time.Second

// browser is one Chromium process with a fresh profile. Its pages live in
// separate browser contexts (as two people on two machines: separate local
// storage, so separate players) unless opened as another tab of a page.
type browser struct {
	t   *testing.T
	ctx context.Context // the browser's first tab, never used for pages

	mu      sync.Mutex
	pages   []*page
	cancels []context.CancelFunc // the pages', closed after diagnose
}

// newBrowser starts Chromium for the test, or skips the test when there is
// none (see requireChromium). The browser ends with the test.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	requireChromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		// Chromium leaves its singleton socket's folder in TMPDIR when it
		// is killed: keep it in the test's own.
		chromedp.Env("TMPDIR="+t.TempDir()),
		chromedp.WindowSize(1280, 800),
	)
	// Chromium now and then exits before it has printed its DevTools
	// address on a busy machine ("chrome failed to start"): a second
	// start, with a profile of its own, is made before the test fails.
	var allocCtx, ctx context.Context
	var cancelAlloc, cancel context.CancelFunc
	var err error
	for try := range 2 {
		if try > 0 {
			cancel()
			cancelAlloc()
			t.Logf("Chromium did not start (%v): starting it again", err)
			opts = append(opts, chromedp.UserDataDir(t.TempDir()))
		}
		allocCtx, cancelAlloc = chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancel = chromedp.NewContext(allocCtx)
		// The first Run starts the browser; it must have no deadline of
		// its own, or the deadline would end the browser.
		if err = chromedp.Do(ctx); err == nil {
			break
		}
	}
	b := &browser{t: t, ctx: ctx}
	t.Cleanup(func() {
		b.checkCSP()
		if t.Failed() {
			b.diagnose()
		}
		b.mu.Lock()
		for _, c := range b.cancels {
			c()
		}
		b.mu.Unlock()
		cancel()
		cancelAlloc()
	})
	require.NoError(t, err, "start Chromium %s", chromium)
	return b
}

// page is one tab, named for the messages of a failing test.
type page struct {
	b    *browser
	t    *testing.T
	name string
	ctx  context.Context
}

// newPage opens a tab in a browser context of its own.
func (b *browser) newPage(name string) *page {
	return b.open(name, b.ctx, chromedp.WithNewBrowserContext())
}

// newTab opens another tab in p's browser context: the same local
// storage, so the same player.
func (p *page) newTab(name string) *page {
	return p.b.open(name, p.ctx)
}

func (b *browser) open(name string, parent context.Context, opts ...chromedp.ContextOption) *page {
	b.t.Helper()
	ctx, cancel := chromedp.NewContext(parent, opts...)
	b.mu.Lock()
	b.cancels = append(b.cancels, cancel)
	b.mu.Unlock()
	require.NoError(b.t, chromedp.Do(ctx), "open a tab for %s", name)
	p := &page{b: b, t: b.t, name: name, ctx: ctx}
	b.mu.Lock()
	b.pages = append(b.pages, p)
	b.mu.Unlock()
	p.viewport(1280, 800, false) // a laptop's, whatever the window is
	p.initScript("watch for CSP violations", cspWatch)
	p.initScript("keep the room's socket", socketKeep)
	return p
}

// socketKeep runs in every document a page opens, before the page's own
// scripts: it keeps, in window.__roomSocket, the socket the page last
// joined a room on, so that fillByProtocol can send moves as the page's
// player without the keyboard.
const socketKeep = `(() => {
	const send = WebSocket.prototype.send;
	WebSocket.prototype.send = function (data) {
		if (typeof data === 'string' && data.startsWith('{"type":"join"')) window.__roomSocket = this;
		return send.call(this, data);
	};
})()`

// cspWatch runs in every document a page opens, before the page's own
// scripts: it keeps each violation of the server's Content-Security-Policy
// that the document reports in the tab's session storage, which outlives
// the document (a reload, a room's link), for checkCSP.
const cspWatch = `document.addEventListener('securitypolicyviolation', (e) => {
	try {
		const seen = JSON.parse(sessionStorage.getItem('e2e.csp') || '[]');
		seen.push(e.effectiveDirective + ': ' + (e.blockedURI || 'inline') + ' (' + e.sourceFile + ':' + e.lineNumber + ')');
		sessionStorage.setItem('e2e.csp', JSON.stringify(seen));
	} catch { /* a document without storage */ }
}, true);`

// cspViolations are the violations of the Content-Security-Policy the
// page's tab has reported on its current origin; nil when the tab is gone.
func (p *page) cspViolations() ([]string, error) {
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`(() => { try { return JSON.parse(sessionStorage.getItem('e2e.csp') || '[]'); } catch { return []; } })()`))
}

// checkCSP fails the test when a page reported that the server's
// Content-Security-Policy blocked something: the client must work under
// it, with nothing inline and nothing from elsewhere.
func (b *browser) checkCSP() {
	b.mu.Lock()
	pages := slices.Clone(b.pages)
	b.mu.Unlock()
	for _, p := range pages {
		if p.ctx.Err() != nil {
			continue
		}
		if seen, err := p.cspViolations(); err == nil && len(seen) > 0 {
			b.t.Errorf("%s: the Content-Security-Policy blocked %s", p.name, strings.Join(seen, "; "))
		}
	}
}

// diagnose saves a screenshot of each page and logs what the page says
// about itself: its address, connection state, message and feed.
func (b *browser) diagnose() {
	b.mu.Lock()
	pages := slices.Clone(b.pages)
	b.mu.Unlock()
	for _, p := range pages {
		ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
		if png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()); err == nil {
			file := "fail-" + fileName(b.t.Name()) + "-" + fileName(p.name) + ".png"
			if err := saveScreenshot(file, png); err == nil {
				b.t.Logf("%s: screenshot e2e/%s/%s", p.name, screenshotDir, file)
			}
		}
		state, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify({
			url: location.href,
			phase: document.documentElement.dataset.phase,
			seq: document.documentElement.dataset.seq,
			conn: document.querySelector('#conn')?.dataset.state + ' ' + document.querySelector('#conn')?.textContent,
			message: document.querySelector('#message')?.dataset.code + ' ' + document.querySelector('#message')?.textContent,
			feed: [...document.querySelectorAll('#feed li')].map(li => li.dataset.kind + ': ' + li.textContent),
		}, null, 1)`))
		if err != nil {
			state = "(page state unreadable: " + err.Error() + ")"
		}
		b.t.Logf("%s: %s", p.name, state)
		cancel()
	}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

func fileName(s string) string { return unsafeName.ReplaceAllString(s, "_") }

func saveScreenshot(file string, png []byte) error {
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		return fmt.Errorf("screenshots: %w", err)
	}
	return os.WriteFile(filepath.Join(screenshotDir, file), png, 0o644)
}

// run runs the actions with the wait bound, and fails the test with what
// was being done.
func (p *page) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.t.Fatalf("%s: %s: %v", p.name, what, err)
	}
}

// eval is the value of a JavaScript expression on the page.
func eval[T any](p *page, expr string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		p.t.Fatalf("%s: evaluate %s: %v", p.name, expr, err)
	}
	return v
}

// wait polls the JavaScript predicate until it is truthy, for at most
// waitTimeout.
func (p *page) wait(what, predicate string) {
	p.t.Helper()
	p.waitFor(what, predicate, waitTimeout)
}

// waitFor polls the predicate from Go rather than with a poll inside the
// page: the page may navigate meanwhile (a reload, a room link), which ends
// an in-page poll, and a background tab gets no animation frames.
func (p *page) waitFor(what, predicate string, timeout time.Duration) {
	p.t.Helper()
	if err := p.poll(predicate, timeout); err != nil {
		p.t.Fatalf("%s: waiting for %s (%s): %v", p.name, what, predicate, err)
	}
}

// errStillFalse is poll's error when the predicate stayed false.
var errStillFalse = errors.New("still false")

// poll evaluates the predicate every 25ms until it is truthy or the time
// is up; it returns errStillFalse, wrapped with the last evaluation error
// if any, when the time is up.
func (p *page) poll(predicate string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	expr := "!!(" + predicate + ")"
	for {
		ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		cancel()
		if err == nil && ok {
			return nil
		}
		if p.ctx.Err() != nil {
			return p.ctx.Err()
		}
		if time.Now().After(deadline) {
			if err != nil {
				return fmt.Errorf("%w (last error: %v)", errStillFalse, err)
			}
			return errStillFalse
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// staysFalse says whether the predicate stays false for d: for what must
// not happen (a reconnect after 4002).
func (p *page) staysFalse(predicate string, d time.Duration) bool {
	p.t.Helper()
	return errors.Is(p.poll(predicate, d), errStillFalse)
}

// navigate opens the address and waits for the page to load.
func (p *page) navigate(url string) {
	p.t.Helper()
	p.run("open "+url, chromedp.Navigate(url))
}

// click clicks the element with the mouse, as a player would (it must be
// visible).
func (p *page) click(sel string) {
	p.t.Helper()
	p.run("click "+sel, chromedp.Click(chromedp.CSS(sel)))
}

// shot saves a screenshot of the viewport as name.png.
func (p *page) shot(name string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(p.t, err, "%s: screenshot %s", p.name, name)
	require.NoError(p.t, saveScreenshot(name+".png", png))
}

// viewport sets the page's size; mobile emulates a phone (touch, mobile
// viewport meta honoured).
func (p *page) viewport(w, h int64, mobile bool) {
	p.t.Helper()
	var opts []chromedp.EmulateViewportOption
	if mobile {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulateScale(2))
	}
	p.run(fmt.Sprintf("viewport %dx%d", w, h), chromedp.EmulateViewport(w, h, opts...))
}

// colorScheme emulates prefers-color-scheme.
func (p *page) colorScheme(scheme string) {
	p.t.Helper()
	p.run("prefers-color-scheme: "+scheme, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		})
		return err
	}))
}

// Modifier bits of a key event.
const (
	modNone  int64 = 0
	modCtrl  int64 = 2
	modShift int64 = 8
)

// key is one key of a US keyboard as the browser reports it.
type key struct {
	key, code string
	vk        int64
	text      string
}

var (
	keyLeft      = key{"ArrowLeft", "ArrowLeft", 37, ""}
	keyUp        = key{"ArrowUp", "ArrowUp", 38, ""}
	keyRight     = key{"ArrowRight", "ArrowRight", 39, ""}
	keyDown      = key{"ArrowDown", "ArrowDown", 40, ""}
	keyBackspace = key{"Backspace", "Backspace", 8, ""}
	keyDelete    = key{"Delete", "Delete", 46, ""}
	keyEscape    = key{"Escape", "Escape", 27, ""}
)

// letterKey is a letter key, lower case, or upper case with shift.
func letterKey(c byte, shift bool) key {
	upper := strings.ToUpper(string(c))
	k := key{string(c), "Key" + upper, int64(upper[0]), string(c)}
	if shift {
		k.key, k.text = upper, upper
	}
	return k
}

// digitKey is a digit of the top row; with shift a US keyboard gives its
// symbol, as a real one does (Shift+5 is "%", code Digit5).
func digitKey(d int, shift bool) key {
	s := string(rune('0' + d))
	k := key{s, "Digit" + s, int64('0' + d), s}
	if shift {
		sym := string(")!@#$%^&*("[d])
		k.key, k.text = sym, sym
	}
	return k
}

// pressRepeat is a key held down: a keydown that repeats, with no keyup.
func (p *page) pressRepeat(k key) {
	p.t.Helper()
	down := input.DispatchKeyEventParams{
		Type: input.DispatchKeyEventTypeRawKeyDown, Key: k.key, Code: k.code,
		WindowsVirtualKeyCode: k.vk, NativeVirtualKeyCode: k.vk, AutoRepeat: ptrTo(true),
	}
	p.run("hold "+k.key, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, input.DispatchKeyEvent, down)
		return err
	}))
}

func ptrTo[T any](v T) *T { return &v }

// press types the key with the modifiers: keydown then keyup, with text
// only when no control key is held, as a keyboard does.
func (p *page) press(k key, mods int64) {
	p.t.Helper()
	down := input.DispatchKeyEventParams{
		Type: input.DispatchKeyEventTypeKeyDown, Modifiers: mods, Key: k.key, Code: k.code,
		WindowsVirtualKeyCode: k.vk, NativeVirtualKeyCode: k.vk,
	}
	if mods&modCtrl == 0 && k.text != "" {
		down.Text, down.UnmodifiedText = k.text, k.text
	} else {
		down.Type = input.DispatchKeyEventTypeRawKeyDown
	}
	up := down
	up.Type, up.Text, up.UnmodifiedText = input.DispatchKeyEventTypeKeyUp, "", ""
	p.run(fmt.Sprintf("press %s (modifiers %d)", k.key, mods), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, down); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, input.DispatchKeyEvent, up)
		return err
	}))
}

// evalVoid is an action that runs JavaScript for its effect.
func evalVoid(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](expr)
}

// initScript runs the JavaScript in every document the page opens from
// now on, before the page's own scripts.
func (p *page) initScript(what, src string) {
	p.t.Helper()
	p.run(what, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: src})
		return err
	}))
}

// skewClock sets the page's clock (Date) off by d from the next document
// on, as a computer whose clock is wrong: what the page shows of the game's
// time must come from the server's clock.
func (p *page) skewClock(d time.Duration) {
	p.t.Helper()
	src := fmt.Sprintf(`(() => {
		const skew = %d, RealDate = Date;
		class SkewedDate extends RealDate {
			constructor(...a) { if (a.length === 0) super(RealDate.now() + skew); else super(...a); }
			static now() { return RealDate.now() + skew; }
		}
		globalThis.Date = SkewedDate;
	})()`, d.Milliseconds())
	p.initScript("skew the clock", src)
}

// recordWelcomeFrame makes the page keep, in window.__welcomeFrame, the
// board as drawn at the first animation frame after each welcome that
// carries a snapshot: what a player sees one frame after joining. Its
// listener is the socket's first, so it runs before the page's own.
func (p *page) recordWelcomeFrame() {
	p.t.Helper()
	p.initScript("watch the welcome", `(() => {
		const Real = WebSocket;
		window.__welcomeFrame = null;
		window.WebSocket = class extends Real {
			constructor(...a) {
				super(...a);
				this.addEventListener('message', (ev) => {
					let m;
					try { m = JSON.parse(ev.data); } catch { return; }
					if (m.type !== 'welcome' || !m.room) return;
					requestAnimationFrame(() => {
						window.__welcomeFrame = [...document.querySelectorAll('#board [data-cell]')]
							.sort((a, b) => a.dataset.cell - b.dataset.cell)
							.map(c => { const d = (c.querySelector('.digit')?.textContent || '').trim(); return /^[1-9]$/.test(d) ? d : '.'; })
							.join('');
					});
				});
			}
		};
	})()`)
}
