package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/arenatest"
)

// TestLevelsShowSE: the level above expert, master, is on home's dailies
// and its level picker; the pages show each puzzle's Sudoku Explainer
// rating (SE), the server's: on home's row of the day's master daily, on
// its daily page, and in a master room's mode line above the board.
// Screenshots: levels-daily, levels-room (desktop and phone, light and
// dark).
func TestLevelsShowSE(t *testing.T) {
	t.Parallel()
	srv := startArena(t)
	b := newBrowser(t)
	ann := b.newPage("Ann")

	resp, err := arenatest.Get(srv.URL() + "/api/daily")
	require.NoError(t, err)
	var daily struct {
		Date   string `json:"date"`
		Levels []struct {
			Level string  `json:"level"`
			SE    float64 `json:"se"`
		} `json:"levels"`
	}
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&daily))
	resp.Body.Close()
	require.Len(t, daily.Levels, 5)
	master := daily.Levels[4]
	require.Equal(t, "master", master.Level)
	assert.GreaterOrEqual(t, master.SE, 7.0, "the master daily is rated 7.0 or more")
	se := fmt.Sprintf("SE %.1f", master.SE)

	ann.navigate(srv.URL() + "/")
	ann.wait("today's five dailies", `document.querySelectorAll('#daily [data-level][data-status]').length === 5`)
	assert.Equal(t, se+" · 0 solved", text(ann, `#daily [data-level="master"] .count`))
	assert.Equal(t, "Master", text(ann, `#daily [data-level="master"] .lvl`))
	assert.Equal(t, []string{"easy", "medium", "hard", "expert", "master"},
		eval[[]string](ann, `[...document.querySelectorAll('#level option')].map(o => o.value)`), "the level picker")
	ann.shotsIn(gameLooks, "levels-home", `#daily`)

	ann.click(`#daily [data-level="master"] a`)
	ann.wait("the master daily's start", `location.pathname === '/daily/`+daily.Date+`/master'`+" && "+visible("#daily-go"))
	ann.wait("its rating", fmt.Sprintf(`document.querySelector('#start-kicker').textContent === %q`, "Puzzle of the day · "+se))
	ann.shotsIn(gameLooks, "levels-daily", "")

	// A master room: its mode line says the level and the puzzle's SE,
	// the snapshot's.
	id := createRoom(ann, srv.URL(), "coop", "master", "Ann")
	v := srv.room(id)
	assert.Equal(t, "master", v.Level)
	require.GreaterOrEqual(t, v.SE, 7.0)
	ann.wait("the mode line", fmt.Sprintf(`document.querySelector('#mode').textContent === %q`, fmt.Sprintf("Co-op · Master · SE %.1f", v.SE)))
	ann.shotsIn(gameLooks, "levels-room", "")
}
