package server

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTournamentEventSize: a "tournament" event carries the top 10 lines
// without games, the player count and the socket's player's own line with
// its games, so its size does not grow with the players.
func TestTournamentEventSize(t *testing.T) {
	t.Parallel()
	standings := testStandings
	big := standings(500)
	ev := tournamentEvent(big, "p321")
	assert.Equal(t, 500, ev.Players)
	require.Len(t, ev.Top, TournamentTop)
	assert.Equal(t, TournamentLine{Rank: 1, Player: "p0", Name: "P0", Score: 1500, Playing: "r0"}, ev.Top[0])
	assert.Equal(t, "p9", ev.Top[9].Player)
	require.NotNil(t, ev.You)
	assert.Equal(t, big.Standings[321], *ev.You, "the player's own line, games and all")
	assert.Equal(t, "r160", ev.You.Playing)

	assert.Nil(t, tournamentEvent(big, "").You, "a spectator")
	assert.Nil(t, tournamentEvent(big, "p_other").You, "a player who has not joined")

	small, err := json.Marshal(tournamentEvent(standings(20), "p19"))
	require.NoError(t, err)
	large, err := json.Marshal(ev)
	require.NoError(t, err)
	assert.InDelta(t, len(small), len(large), 60, "500 players cost an event what 20 do")
	assert.Less(t, len(large), 2000)

	few := tournamentEvent(standings(3), "p2")
	assert.Len(t, few.Top, 3)
	assert.Equal(t, 3, few.You.Rank)
	empty, err := json.Marshal(tournamentEvent(TournamentResponse{TournamentHead: TournamentHead{ID: "t1"}}, "p1"))
	require.NoError(t, err)
	assert.Contains(t, string(empty), `"players":0,"top":[]`)
	assert.NotContains(t, string(empty), `"you"`)
}

// testStandings are n players' standings, each with two games, the
// first ranked first.
func testStandings(n int) TournamentResponse {
	tr := TournamentResponse{TournamentHead: TournamentHead{ID: "t1", Name: "Arena", Level: "easy", Status: "running"}}
	for i := range n {
		tr.Standings = append(tr.Standings, TournamentStanding{TournamentLine: TournamentLine{Rank: i + 1, Player: fmt.Sprintf("p%d", i), Name: fmt.Sprintf("P%d", i),
			Score: 3 * (n - i), Playing: fmt.Sprintf("r%d", i/2)},
			Games: []TournamentGame{{Race: "a", Place: 1, Points: 4}, {Race: "b", Place: 2, Points: 3}}})
	}
	return tr
}

// TestTournamentUpdateEvents: an update's events are, byte for byte,
// those docs/protocol.md describes (json.Marshal of tournamentEvent), for
// a spectator, a player not in it, a player in the top and one below it,
// and a tournament with nobody yet; the shared part is encoded once, so
// the sockets of one update read the same bytes.
func TestTournamentUpdateEvents(t *testing.T) {
	t.Parallel()
	for _, tr := range []TournamentResponse{testStandings(500), testStandings(3), {TournamentHead: TournamentHead{ID: "t1", Status: "upcoming"}}} {
		u := NewTournamentUpdate(tr)
		for _, me := range []string{"", "p_other", "p0", "p2", "p321", "p499"} {
			want, err := json.Marshal(tournamentEvent(tr, me))
			require.NoError(t, err)
			got, err := u.Event(me)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got), "%d players, as %q", len(tr.Standings), me)
		}
	}
	u := NewTournamentUpdate(testStandings(40))
	a, err := u.Event("p30")
	require.NoError(t, err)
	b, err := u.Event("p31")
	require.NoError(t, err)
	assert.Equal(t, string(u.shared), string(a[:len(u.shared)]), "one shared part")
	assert.Equal(t, string(u.shared), string(b[:len(u.shared)]))
	assert.NotEqual(t, string(a), string(b), "each its own line")
}

// BenchmarkTournamentUpdate is one update of a 500-player tournament's
// events for its 500 sockets: "each" encodes every socket's event whole,
// as the server did; "shared" encodes the top once (TournamentUpdate).
func BenchmarkTournamentUpdate(b *testing.B) {
	tr := testStandings(500)
	b.Run("each", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i := range 500 {
				if _, err := json.Marshal(tournamentEvent(tr, fmt.Sprint("p", i))); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("shared", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			u := NewTournamentUpdate(tr)
			for i := range 500 {
				if _, err := u.Event(fmt.Sprint("p", i)); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
