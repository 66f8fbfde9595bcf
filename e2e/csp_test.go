package e2e

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
)

// TestContentSecurityPolicy plays under the server's policy: the home
// page, a room made through the API and joined over the WebSocket, and
// the lab report no violation; and the policy is in force, so a script
// put inline into the page does not run, and is reported. (Every browser
// test checks at its end that its pages reported none: checkCSP.)
func TestContentSecurityPolicy(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	resp, err := arenatest.Get(srv.URL() + "/")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, resp.Header.Get("Content-Security-Policy"), "default-src 'self'")

	b := newBrowser(t)
	p := b.newPage("Ann")
	createRoom(p, srv.URL(), "race", "easy", "Ann")
	waitJoined(p)
	p.navigate(srv.URL() + "/lab")
	p.wait("the lab", visible("#lab-board"))
	seen, err := p.cspViolations()
	require.NoError(t, err)
	assert.Empty(t, seen, "the client works under the policy")

	p.run("put a script inline", evalVoid(`(() => {
		const s = document.createElement('script');
		s.textContent = 'window.inlineRan = true';
		document.head.append(s);
	})()`))
	p.wait("the violation reported", `JSON.parse(sessionStorage.getItem('e2e.csp') || '[]').some(v => v.startsWith('script-src'))`)
	assert.False(t, eval[bool](p, `window.inlineRan === true`), "the inline script did not run")
	p.run("forget the violation this test made", evalVoid(`sessionStorage.removeItem('e2e.csp')`))
}
