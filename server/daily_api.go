package server

import "time"

// The JSON answers of the daily and leaderboard routes (docs/protocol.md,
// "The puzzle of the day"). Times are milliseconds (*_ms) and RFC 3339
// instants (*_at); dates are UTC YYYY-MM-DD.

// DailyResponse is GET /api/daily: today's date and each level's puzzle.
type DailyResponse struct {
	Date string `json:"date"`
	// GuestsRanked says whether guests' finishes are ranked (RANK_GUESTS);
	// by default only accounts' are.
	GuestsRanked bool         `json:"guests_ranked"`
	Levels       []DailyLevel `json:"levels"`
}

// DailyLevel is one level's daily: its puzzle, how many have a ranked
// finish on it, and, for a caller with a bearer token, where they stand.
type DailyLevel struct {
	Level    string `json:"level"`
	PuzzleID int64  `json:"puzzle_id"`
	// SE is the puzzle's Sudoku Explainer rating, one decimal; omitted
	// when it is not known (a puzzle stored before ratings were).
	SE       float64   `json:"se,omitempty"`
	Finished int       `json:"finished"`
	You      *DailyYou `json:"you,omitempty"`
}

// Statuses of a player on a daily.
const (
	DailyNotStarted = "not_started"
	DailyPlaying    = "playing"
	DailySolved     = "solved"
)

// DailyYou is the caller's status on one daily: not started, playing (in
// Room), or solved (with their time and, when ranked, rank). Ranked says
// whether their finish counts on the day's board (or, not yet solved,
// would count); Review is "held" while a solved finish waits for review
// ("removed" once a reviewer kept it off the board).
type DailyYou struct {
	Status string `json:"status"`
	Room   string `json:"room,omitempty"`
	TimeMS int64  `json:"time_ms,omitempty"`
	Rank   int    `json:"rank,omitempty"`
	Ranked bool   `json:"ranked"`
	Review string `json:"review,omitempty"`
}

// PlayerRef names a player in a leaderboard row.
type PlayerRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Guest is set on a player without an account (shown as a guest).
	Guest bool `json:"guest,omitempty"`
}

// LeaderRow is one row of any leaderboard. TimeMS is ElapsedMS plus the
// penalties of the mistakes and hints; a daily board is ordered by it,
// then by the earlier finish, then by player id.
type LeaderRow struct {
	Rank       int       `json:"rank"`
	Player     PlayerRef `json:"player"`
	TimeMS     int64     `json:"time_ms"`
	ElapsedMS  int64     `json:"elapsed_ms"`
	Mistakes   int       `json:"mistakes"`
	Hints      int       `json:"hints"`
	FinishedAt time.Time `json:"finished_at"`
}

// LeaderboardResponse is GET /api/daily/{date}/{level}/leaderboard.
// Around is the caller's row with the rows either side of it, only with
// around=me and a bearer token whose player has a ranked result that day.
type LeaderboardResponse struct {
	Date   string      `json:"date"`
	Level  string      `json:"level"`
	Total  int         `json:"total"`
	Top    []LeaderRow `json:"top"`
	Around []LeaderRow `json:"around,omitempty"`
}

// BestTimesResponse is GET /api/leaderboards/{level}: the all-time best
// times, one row per player.
type BestTimesResponse struct {
	Level string      `json:"level"`
	Rows  []LeaderRow `json:"rows"`
}

// PlayerResponse is GET /api/players/{id}: a player's public record.
type PlayerResponse struct {
	ID      string              `json:"id"`
	Name    string              `json:"name"`
	Guest   bool                `json:"guest,omitempty"`
	Streak  StreakJSON          `json:"streak"`
	Best    map[string]BestTime `json:"best"`
	Stats   PlayerStats         `json:"stats"`
	Results []PlayerResultJSON  `json:"results"`
	// Next is the cursor of the games older than Results, for GET
	// /api/players/{id}/games?before=; "" when these are all.
	Next string `json:"next,omitempty"`
}

// PlayerGamesResponse is GET /api/players/{id}/games: a page of a
// player's games, newest first, and the cursor of the page after it.
type PlayerGamesResponse struct {
	Results []PlayerResultJSON `json:"results"`
	Next    string             `json:"next,omitempty"`
}

// PlayerStats is what a player has finished: by mode (each of race, coop
// and daily, zero when none) and by level (the levels with a timed
// finish only).
type PlayerStats struct {
	Modes  map[string]ModeStats  `json:"modes"`
	Levels map[string]LevelStats `json:"levels"`
}

// ModeStats counts a player's finishes of a mode; Won, a race's only, is
// how many they finished first of two or more finishers, and Contested
// how many had two or more finishers (a win rate's whole: a race run
// alone is neither won nor lost).
type ModeStats struct {
	Finished  int  `json:"finished"`
	Won       *int `json:"won,omitempty"`
	Contested *int `json:"contested,omitempty"`
}

// LevelStats is a player's times on a level, from their finishes that
// are timed: races and dailies (not co-op, a team's time), none held or
// removed in review and no own puzzle. Times are as played (elapsed, no
// penalties).
type LevelStats struct {
	Finished  int   `json:"finished"`
	BestMS    int64 `json:"best_ms"`
	AverageMS int64 `json:"average_ms"`
}

// PlayerDaysResponse is GET /api/players/{id}/days: the dailies of a
// month the player solved.
type PlayerDaysResponse struct {
	ID    string        `json:"id"`
	Month string        `json:"month"`
	Days  []SolvedDaily `json:"days"`
}

// SolvedDaily is one daily (a date and level) a player finished, in any
// room: the time of their fastest finish of it (with penalties, as a
// daily's board counts them) and whether they finished it on its day
// (OnDay: it counts for the streak) rather than from the archive later.
type SolvedDaily struct {
	Date   string `json:"date"`
	Level  string `json:"level"`
	TimeMS int64  `json:"time_ms"`
	OnDay  bool   `json:"on_day"`
}

// StreakJSON is a player's run of consecutive days with a ranked daily.
type StreakJSON struct {
	Current int `json:"current"`
	Longest int `json:"longest"`
}

// BestTime is a player's fastest finish of a level.
type BestTime struct {
	TimeMS     int64     `json:"time_ms"`
	ElapsedMS  int64     `json:"elapsed_ms"`
	FinishedAt time.Time `json:"finished_at"`
}

// PlayerResultJSON is one of a player's results. Date is set for a ranked
// daily result; Rank is the place in the room (a race's finishing order;
// none in co-op), or on the day's board for a ranked daily.
type PlayerResultJSON struct {
	Room      string `json:"room"`
	Mode      string `json:"mode"`
	Level     string `json:"level"`
	Date      string `json:"date,omitempty"`
	TimeMS    int64  `json:"time_ms"`
	ElapsedMS int64  `json:"elapsed_ms"`
	Rank      int    `json:"rank,omitempty"`
	Ranked    bool   `json:"ranked"`
	// Review is "held" while the finish waits for review, "removed" once
	// a reviewer kept it off the boards; omitted otherwise.
	Review     string    `json:"review,omitempty"`
	FinishedAt time.Time `json:"finished_at"`
}
