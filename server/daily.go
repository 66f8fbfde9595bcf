package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// Dailies is what the daily and leaderboard routes read: the puzzles of
// the day, their leaderboards and players' records. Days are UTC
// YYYY-MM-DD dates the server has checked.
type Dailies interface {
	// DailyPuzzle is the id of the day's daily puzzle of the level, made
	// and stored the first time it is asked for, with its Sudoku
	// Explainer rating (0 when it was stored unrated).
	DailyPuzzle(ctx context.Context, day, level string) (int64, engine.SERating, error)
	// DailyCount is how many ranked finishes the day's daily has.
	DailyCount(ctx context.Context, day, level string) (int, error)
	DailyTop(ctx context.Context, day, level string, limit int) ([]LeaderRow, error)
	// DailyAround is the player's row with up to n rows either side; nil
	// when the player has no ranked result that day.
	DailyAround(ctx context.Context, day, level, playerID string, n int) ([]LeaderRow, error)
	BestTimes(ctx context.Context, level string, limit int) ([]LeaderRow, error)
	// PlayerRecord is a player's public record as of today, or
	// room.ErrUnknownPlayer.
	PlayerRecord(ctx context.Context, id, today string) (PlayerResponse, error)
	// PlayerDays is the dailies of the month (YYYY-MM) the player
	// finished, by date, then level, or room.ErrUnknownPlayer.
	PlayerDays(ctx context.Context, id, month string) (PlayerDaysResponse, error)
	// PlayerGames is a page of the player's games older than the cursor
	// (a record's or a page's Next; "" for the latest), or
	// room.ErrUnknownPlayer, or ErrBadCursor.
	PlayerGames(ctx context.Context, id, before string) (PlayerGamesResponse, error)
	// RanksGuests reports whether guests' finishes are ranked
	// (RANK_GUESTS).
	RanksGuests() bool
	// DailyRanks reports whether the player's finish of the day's daily
	// of the level would be ranked now.
	DailyRanks(ctx context.Context, day, level, playerID string) (bool, error)
	// DailyFinishes is the player's finish of each level's daily of the
	// day played on that day, by level (none for a level not finished):
	// the ranked one where there is one, else one held for review, else
	// the first.
	DailyFinishes(ctx context.Context, day, playerID string) (map[string]DailyFinish, error)
}

// DailyFinish is a player's finish of a day's daily, as GET /api/daily
// tells it: its time on the board's terms, whether it is on the day's
// board (Ranked, with its Rank there) and where it stands in review.
type DailyFinish struct {
	TimeMS int64
	Rank   int
	Ranked bool
	// Review is "held" or "removed" (see PlayerResultJSON.Review); "" for
	// a finish never held.
	Review string
}

// SetDailies gives the server its daily routes' data; until it is set they
// answer 503 unavailable. Call it before serving.
func (s *Server) SetDailies(d Dailies) { s.dailies = d }

// aroundRows is how many rows either side of the caller "around" holds.
const aroundRows = 5

// maxLimit is the most rows a leaderboard answer holds, and the default.
const maxLimit = 100

// badDate is the refusal of a date that is not a UTC date up to today.
func badDate(today string) *protocol.Error {
	return protocol.Errorf(protocol.CodeBadField, "date must be a UTC date YYYY-MM-DD from %d days before today to today (%s)", room.ArchiveDays, today)
}

// badLevel is the refusal of an unknown level.
func badLevel() *protocol.Error {
	return protocol.Errorf(protocol.CodeBadField, "level must be %s", room.LevelChoices())
}

// writeRefusal answers with the refusal, at its code's status (400 for
// a request as sent that is wrong).
func writeRefusal(w http.ResponseWriter, e *protocol.Error) {
	writeError(w, e.Code, e.Message)
}

// unavailable answers 503 when the daily data cannot be read, and logs
// why.
func (s *Server) unavailable(w http.ResponseWriter, what string, err error) {
	s.log.Error(what, "err", err)
	writeError(w, protocol.CodeUnavailable, "the leaderboards cannot be read just now: try again")
}

// readLimit reads ?limit=: 1 to maxLimit, maxLimit when absent.
func readLimit(r *http.Request) (int, *protocol.Error) {
	v := r.URL.Query().Get("limit")
	if v == "" {
		return maxLimit, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > maxLimit {
		return 0, protocol.Errorf(protocol.CodeBadField, "limit must be a whole number from 1 to %d", maxLimit)
	}
	return n, nil
}

// bearer is the player the request's Authorization: Bearer token names,
// or without one the session cookie's, or "" when they name none (no
// header, an unknown token, no live session: the answer then leaves out
// what is about the caller). A token is never read from the query, where
// it would land in logs and histories.
func (s *Server) bearer(r *http.Request) (string, error) {
	h := r.Header.Get("Authorization")
	token, ok := strings.CutPrefix(h, "Bearer ")
	if !ok || token == "" || len(token) > protocol.MaxTokenLen {
		return s.cookiePlayer(r)
	}
	id, _, _, err := s.playerByToken(r.Context(), HashToken(token))
	if errors.Is(err, room.ErrUnknownPlayer) {
		return "", nil
	}
	return id, err
}

// dailyArgs answers false, having written the refusal or the 503, when the
// route's date or level is wrong or there are no daily data.
func (s *Server) dailyArgs(w http.ResponseWriter, date, level string) bool {
	if s.dailies == nil {
		s.unavailable(w, "daily: no daily data", errors.New("server: SetDailies was not called"))
		return false
	}
	if date != "" && s.rooms.CheckDay(date) != nil {
		writeRefusal(w, badDate(s.rooms.Today()))
		return false
	}
	if !slices.Contains(room.Levels, level) {
		writeRefusal(w, badLevel())
		return false
	}
	return true
}

// getDaily is GET /api/daily.
func (s *Server) getDaily(w http.ResponseWriter, r *http.Request) {
	today := s.rooms.Today()
	if !s.dailyArgs(w, today, room.Levels[0]) {
		return
	}
	me, err := s.bearer(r)
	if err != nil {
		s.unavailable(w, "daily: bearer", err)
		return
	}
	ctx := r.Context()
	var finishes map[string]DailyFinish
	if me != "" {
		if finishes, err = s.dailies.DailyFinishes(ctx, today, me); err != nil {
			s.unavailable(w, "daily: finishes", err)
			return
		}
	}
	resp := DailyResponse{Date: today, GuestsRanked: s.dailies.RanksGuests(), Levels: make([]DailyLevel, 0, len(room.Levels))}
	for _, level := range room.Levels {
		dl := DailyLevel{Level: level}
		var se engine.SERating
		if dl.PuzzleID, se, err = s.dailies.DailyPuzzle(ctx, today, level); err == nil {
			dl.SE = float64(se) / 10
			dl.Finished, err = s.dailies.DailyCount(ctx, today, level)
		}
		if err == nil && me != "" {
			dl.You, err = s.dailyYou(ctx, me, today, level, finishes)
		}
		if err != nil {
			s.unavailable(w, "daily: "+level, err)
			return
		}
		resp.Levels = append(resp.Levels, dl)
	}
	writeJSON(w, http.StatusOK, resp)
}

// dailyYou is the player's status on the day's daily of the level:
// solved once they have a finish of it on its day (finishes, by level),
// whether or not it is on the day's board (ranked, held for review, or an
// unranked attempt); else playing or not started.
func (s *Server) dailyYou(ctx context.Context, me, day, level string, finishes map[string]DailyFinish) (*DailyYou, error) {
	if f, ok := finishes[level]; ok {
		you := &DailyYou{Status: DailySolved, TimeMS: f.TimeMS, Ranked: f.Ranked, Review: f.Review}
		if f.Ranked {
			you.Rank = f.Rank
		}
		return you, nil
	}
	ranks, err := s.dailies.DailyRanks(ctx, day, level, me)
	if err != nil {
		return nil, err
	}
	if id := s.rooms.PlayingDaily(me, day, level); id != "" {
		return &DailyYou{Status: DailyPlaying, Room: id, Ranked: ranks}, nil
	}
	return &DailyYou{Status: DailyNotStarted, Ranked: ranks}, nil
}

// getDailyLeaderboard is GET /api/daily/{date}/{level}/leaderboard.
func (s *Server) getDailyLeaderboard(w http.ResponseWriter, r *http.Request) {
	date, level := r.PathValue("date"), r.PathValue("level")
	if !s.dailyArgs(w, date, level) {
		return
	}
	limit, rerr := readLimit(r)
	if rerr == nil {
		if a := r.URL.Query().Get("around"); a != "" && a != "me" {
			rerr = protocol.Errorf(protocol.CodeBadField, `around must be "me"`)
		}
	}
	if rerr != nil {
		writeRefusal(w, rerr)
		return
	}
	ctx := r.Context()
	resp := LeaderboardResponse{Date: date, Level: level}
	// The three reads are independent: run at once, the answer waits for
	// the slowest rather than for their sum.
	var wg sync.WaitGroup
	var errs [3]error
	wg.Go(func() { resp.Total, errs[0] = s.dailies.DailyCount(ctx, date, level) })
	wg.Go(func() { resp.Top, errs[1] = s.dailies.DailyTop(ctx, date, level, limit) })
	if r.URL.Query().Get("around") == "me" {
		wg.Go(func() {
			me, err := s.bearer(r)
			if err == nil && me != "" {
				resp.Around, err = s.dailies.DailyAround(ctx, date, level, me, aroundRows)
			}
			errs[2] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		s.unavailable(w, fmt.Sprintf("daily leaderboard %s %s", date, level), err)
		return
	}
	if resp.Top == nil {
		resp.Top = []LeaderRow{}
	}
	writeJSON(w, http.StatusOK, resp)
}

// retryRecords is Retry-After of a player's record refused by RecordRate:
// a minute refills the address's bucket.
const retryRecords = "60"

// recordArgs answers false, having written the refusal or the 503, when
// the address has read too many records (RecordRate) or there are no
// daily data.
func (s *Server) recordArgs(w http.ResponseWriter, r *http.Request) bool {
	if !s.recordReqs.allow(clientAddr(r), s.clock.Now()) {
		w.Header().Set("Retry-After", retryRecords)
		writeError(w, protocol.CodeRateLimited, "too many players' records read from this address: wait a minute")
		return false
	}
	return s.dailyArgs(w, "", room.Levels[0])
}

// getPlayer is GET /api/players/{id}.
func (s *Server) getPlayer(w http.ResponseWriter, r *http.Request) {
	if !s.recordArgs(w, r) {
		return
	}
	rec, err := s.dailies.PlayerRecord(r.Context(), r.PathValue("id"), s.rooms.Today())
	s.writeRecord(w, "player record", rec, err)
}

// writeRecord answers with a player's record (or part of one), or with
// why there is none: an unknown player is 404, a failed read 503.
func (s *Server) writeRecord(w http.ResponseWriter, what string, v any, err error) {
	switch {
	case errors.Is(err, room.ErrUnknownPlayer):
		writeError(w, protocol.CodePlayerNotFound, "no player has that id")
	case err != nil:
		s.unavailable(w, what, err)
	default:
		writeJSON(w, http.StatusOK, v)
	}
}

// ErrBadCursor is a games page's cursor that no page gave.
var ErrBadCursor = errors.New("server: not a cursor of a player's games")

// getPlayerGames is GET /api/players/{id}/games?before=CURSOR: the page of
// the player's games after the one whose next the cursor was. It counts as
// a record read (RecordRate).
func (s *Server) getPlayerGames(w http.ResponseWriter, r *http.Request) {
	if !s.recordArgs(w, r) {
		return
	}
	games, err := s.dailies.PlayerGames(r.Context(), r.PathValue("id"), r.URL.Query().Get("before"))
	if errors.Is(err, ErrBadCursor) {
		writeError(w, protocol.CodeBadField, "before must be the next of a player's record or of a page of their games")
		return
	}
	s.writeRecord(w, "player games", games, err)
}

// monthLayout is a month as the days route takes it.
const monthLayout = "2006-01"

// getPlayerDays is GET /api/players/{id}/days?month=YYYY-MM (this month
// when absent): the month's dailies the player solved, for calendars. It
// counts as a record read (RecordRate).
func (s *Server) getPlayerDays(w http.ResponseWriter, r *http.Request) {
	if !s.recordArgs(w, r) {
		return
	}
	this := s.rooms.Today()[:len(monthLayout)]
	month := r.URL.Query().Get("month")
	if month == "" {
		month = this
	}
	if m, err := time.Parse(monthLayout, month); err != nil || m.Format(monthLayout) != month || month > this {
		writeError(w, protocol.CodeBadField, fmt.Sprintf("month must be a month YYYY-MM no later than this one (%s)", this))
		return
	}
	days, err := s.dailies.PlayerDays(r.Context(), r.PathValue("id"), month)
	s.writeRecord(w, "player days", days, err)
}

// getBestTimes is GET /api/leaderboards/{level}.
func (s *Server) getBestTimes(w http.ResponseWriter, r *http.Request) {
	level := r.PathValue("level")
	if !s.dailyArgs(w, "", level) {
		return
	}
	limit, rerr := readLimit(r)
	if rerr != nil {
		writeRefusal(w, rerr)
		return
	}
	rows, err := s.dailies.BestTimes(r.Context(), level, limit)
	if err != nil {
		s.unavailable(w, "best times "+level, err)
		return
	}
	if rows == nil {
		rows = []LeaderRow{}
	}
	writeJSON(w, http.StatusOK, BestTimesResponse{Level: level, Rows: rows})
}
