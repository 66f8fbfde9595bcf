package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/server"
)

// tournamentAs posts the tournament's action (join, withdraw) as the
// player of token and answers the tournament.
func tournamentAs(t *testing.T, srv *arena, tid, action, token string) server.TournamentResponse {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL()+"/api/tournaments/"+tid+"/"+action, strings.NewReader("{}"))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", srv.URL())
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := arenatest.Client.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode, action)
	var tr server.TournamentResponse
	require.NoError(t, json.NewDecoder(res.Body).Decode(&tr))
	return tr
}

// annPairedWithBot: Ann joins srv's running tournament on its page, then
// a bot over HTTP; the two are paired into a race, which Ann's page
// offers. It answers the tournament, Ann's page, the bot (to join the
// race with its token) and the race.
func annPairedWithBot(ctx context.Context, t *testing.T, srv *arena) (string, *page, *bot, string) {
	t.Helper()
	tid := runningTournament(t, srv)

	b := newBrowser(t)
	ann := b.newPage("Ann")
	ann.navigate(srv.URL() + "/")
	ann.run("Ann's name", evalVoid(`localStorage.setItem('arena.name', 'Ann')`))
	ann.navigate(srv.URL() + "/t/" + tid)
	ann.wait("the join button", visible("#t-join"))
	ann.click("#t-join")
	ann.wait("joined", `document.querySelector('#t-join').textContent === 'Withdraw'`)
	scratch, tr := tournamentBot(ctx, t, srv, tid)
	require.Len(t, tr.Standings, 2)
	race := tr.Standings[0].Playing
	require.NotEmpty(t, race, "paired: %+v", tr.Standings)
	ann.wait("the way to the race", visible(".t-go"))
	return tid, ann, scratch, race
}

// TestTournamentRaceBack: Ann goes from the tournament's page to her race
// (/r/RACE?t=ID) and races a bot, which wins and withdraws; once Ann has
// finished, her finish card leads back to the tournament first. The bot
// joins again, the tournament pairs the two anew, and the card offers
// Ann that next race, the way back beside it; the way back leads to the
// tournament's page.
func TestTournamentRaceBack(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	srv := startArena(t, "TOURNAMENTS="+arenatest.Tournaments(), "PLAYER_RATE=0", "GROUP_WAIT=1m")
	tid, ann, scratch, race := annPairedWithBot(ctx, t, srv)
	assert.Equal(t, "/r/"+race+"?t="+tid, eval[string](ann, `document.querySelector('.t-go').getAttribute('href')`))
	ann.click(".t-go")
	ann.wait("the race room", fmt.Sprintf(`location.pathname === '/r/%s' && location.search === '?t=%s'`, race, tid))

	racer := joinBot(ctx, t, srv, race, "Bot", scratch.token)
	defer racer.conn.CloseNow()
	for racer.phase != protocol.PhaseRunning {
		racer.read(ctx)
	}
	waitPlaying(ann)
	assert.False(t, eval[bool](ann, `!!document.querySelector('#t-back') && !document.querySelector('#finish').hidden`), "no finish card while she plays")
	racer.solve(ctx)
	tournamentAs(t, srv, tid, "withdraw", racer.token)

	givens, sol := puzzle(ann)
	cells := empties(givens)
	ann.solve(cells, sol)
	ann.wait("the finish card, the way back first", `!document.querySelector('#finish').hidden && [...document.querySelectorAll('#finish-actions > *')].find((c) => !c.hidden)?.id === 't-back'`)
	assert.Equal(t, "Back to the tournament", text(ann, "#t-back"))
	assert.Equal(t, "/t/"+tid, eval[string](ann, `document.querySelector('#t-back').getAttribute('href')`))
	assert.True(t, eval[bool](ann, `document.querySelector('#t-next').hidden`), "the bot has withdrawn: no next race yet")
	ann.shotsIn(tournamentLooks, "tournament-race-back", "#finish")

	tr := tournamentAs(t, srv, tid, "join", racer.token)
	var again string
	for _, s := range tr.Standings {
		if s.Player == racer.id {
			again = s.Playing
		}
	}
	require.NotEmpty(t, again, "paired anew with Ann: %+v", tr.Standings)
	require.NotEqual(t, race, again)
	ann.wait("the next race offered", visible("#t-next"))
	assert.Equal(t, "Your next race is ready: play", text(ann, "#t-next"))
	assert.Equal(t, "/r/"+again+"?t="+tid, eval[string](ann, `document.querySelector('#t-next').getAttribute('href')`))
	assert.True(t, eval[bool](ann, `document.querySelector('#t-next').classList.contains('primary') && !document.querySelector('#t-back').classList.contains('primary')`), "the next race first")
	ann.shotsIn(tournamentLooks, "tournament-race-next", "#finish")

	ann.click("#t-back")
	ann.wait("the tournament's page", fmt.Sprintf(`location.pathname === '/t/%s' && document.querySelector('#t-standings') !== null`, tid))
}
