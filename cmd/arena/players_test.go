package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/server"
	"github.com/sudoku-arena/arena/store/backend/backendtest"
)

// A player's games come a page of 20 at a time, newest first: the record
// holds the latest and the cursor of the page after them, each page the
// cursor of its next, the last none; every game is on one page, each
// ranked daily with its place on its day's board.
func TestPlayerGamesPages(t *testing.T) {
	for name, st := range backendtest.Stores(t) {
		t.Run(name, func(t *testing.T) {
			n := newNode(t, st, morning)
			one, zero := []time.Duration{5 * time.Minute}, []int{0}
			var days []string
			for i := range 23 {
				day := morning.AddDate(0, 0, -i).Format("2006-01-02")
				seedDaily(t, n, day, one, zero, zero, []time.Duration{-time.Duration(i) * 24 * time.Hour})
				days = append(days, day)
			}
			var rec server.PlayerResponse
			n.getJSON(t, "/api/players/p000", "", &rec)
			require.Len(t, rec.Results, 20)
			require.NotEmpty(t, rec.Next, "more games than a page")
			var page server.PlayerGamesResponse
			n.getJSON(t, "/api/players/p000/games?before="+rec.Next, "", &page)
			require.Len(t, page.Results, 3)
			assert.Empty(t, page.Next, "the last page")
			var got []string
			for _, r := range append(rec.Results, page.Results...) {
				got = append(got, r.Date)
				assert.Equal(t, 1, r.Rank, "%s: the place on the day's board", r.Date)
			}
			assert.Equal(t, days, got, "every game once, newest first")

			var first server.PlayerGamesResponse
			n.getJSON(t, "/api/players/p000/games", "", &first)
			assert.Equal(t, rec.Results, first.Results, "without a cursor: the latest, as the record has them")
			assert.Equal(t, rec.Next, first.Next)

			for _, bad := range []string{"x", "1", "1.x", "-1.2", "1.-2"} {
				code, body := n.get(t, "/api/players/p000/games?before="+bad, "")
				assert.Equal(t, http.StatusBadRequest, code, bad)
				assert.Contains(t, string(body), protocol.CodeBadField, bad)
			}
			code, body := n.get(t, "/api/players/p_nobody/games", "")
			assert.Equal(t, http.StatusNotFound, code)
			assert.Contains(t, string(body), protocol.CodePlayerNotFound)
		})
	}
}
