package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/server"
)

// TestTournamentBerserk: Ann and a bot are paired in a tournament and
// meet in their race. Ann goes berserk from the race page's Berserk
// button: her notes and hint go off her pad and the list marks her. The
// bot goes berserk too (over its socket), which Ann's feed tells, and
// wins: its game scores 4 + 1, marked berserk, in the standings.
func TestTournamentBerserk(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv := startArena(t, "TOURNAMENTS="+arenatest.Tournaments(), "PLAYER_RATE=0", "GROUP_WAIT=1m")
	tid, ann, scratch, race := annPairedWithBot(ctx, t, srv)
	ann.click(".t-go")
	ann.wait("the race room", fmt.Sprintf(`location.pathname.startsWith('/r/%s')`, race))
	ann.wait("the Berserk button", visible("#berserk"))
	ann.shotsIn(tournamentLooks[2:3], "berserk-lobby", "#lobby")
	racer := joinBot(ctx, t, srv, race, "Bot", scratch.token)
	defer racer.conn.CloseNow()
	for racer.phase != protocol.PhaseRunning {
		racer.read(ctx)
	}
	waitPlaying(ann)
	ann.shotsIn(tournamentLooks, "berserk-offer", "#berserk-offer")
	ann.click("#berserk")
	ann.wait("Ann's berserk, told", feedHas("info", "Ann", "went berserk."))
	ann.wait("the offer gone", `document.querySelector("#berserk-offer").hidden`)
	assert.True(t, eval[bool](ann, `document.querySelector('[data-pad-mode="corner"]').disabled && document.querySelector('[data-pad-mode="centre"]').disabled`), "no notes")
	assert.True(t, eval[bool](ann, `document.querySelector('#hint').disabled`), "no hints")
	assert.Equal(t, "berserk", text(ann, `#players li.me .berserk-tag`))

	racer.send(ctx, map[string]any{"type": "berserk"})
	ann.wait("the bot's berserk, told", feedHas("info", "Bot", "went berserk."))
	ann.shotsIn(tournamentLooks, "berserk", "")
	racer.solve(ctx)

	var after server.TournamentResponse
	require.Eventually(t, func() bool {
		res, err := arenatest.Get(srv.URL() + "/api/tournaments/" + tid)
		if err != nil {
			return false
		}
		defer res.Body.Close()
		after = server.TournamentResponse{}
		return json.NewDecoder(res.Body).Decode(&after) == nil && len(after.Standings) == 2 && after.Standings[0].Score > 0
	}, 10*time.Second, 50*time.Millisecond)
	assert.Equal(t, racer.id, after.Standings[0].Player)
	assert.Equal(t, []server.TournamentGame{{Race: race, Place: 1, Points: 5, Berserk: true}}, after.Standings[0].Games)

	// The page marks the berserk win in the full standings (shown past
	// the top ten).
	for i := range 10 {
		tournamentGuest(t, srv, tid, fmt.Sprintf("Guest %d", i+1))
	}
	ann.navigate(srv.URL() + "/t/" + tid)
	ann.wait("all twelve", visible("#t-more"))
	ann.click("#t-more")
	ann.wait("the bot's berserk game", fmt.Sprintf(`document.querySelector('#t-standings tr[data-player=%q] .t-game.berserk') !== null`, racer.id))
	assert.Equal(t, "1st place, berserk, 5 points: replay", eval[string](ann, fmt.Sprintf(`document.querySelector('#t-standings tr[data-player=%q] .t-game').getAttribute('aria-label')`, racer.id)))
	ann.shotsIn(tournamentLooks[:1], "berserk-standings", "")
}
