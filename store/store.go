// Package store is persistence for Sudoku Arena in the game's own
// vocabulary: players, puzzles and the pool of ready ones, rooms and their
// event logs, results, daily puzzles and leaderboards.
//
// Store is the one interface; store/postgres (pgx) and store/sqlite (the
// embedded default) implement it and pass the same contract suite
// (store/storetest), each in one file per entity. Callers depend on the
// interface, or on smaller ones they declare themselves, never on a driver.
//
// Beside it: the event log, which writes rooms' events in batches off their
// path (EventLog); the pool of ready puzzles and the generator that fills it
// (PuzzlePool, MakePuzzle); the event retention; the coordination of several
// nodes (Cluster); and Adapter, the store as the rooms (room.Store, with
// package daily) and the server's players and replays need it. The package
// knows nothing of the rooms' rules, the daily's, or of HTTP.
package store

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/sudoku-arena/arena/engine"
	"time"
)

// Error kinds. Implementations wrap them with context; test with errors.Is.
var (
	// ErrNotFound: no such row.
	ErrNotFound = errors.New("not found")
	// ErrConflict: the row breaks a uniqueness rule (an id, a token, one
	// result per player and room, one daily result per player, day and level).
	ErrConflict = errors.New("already exists")
	// ErrInvalid: the value cannot be stored (an empty id, an unknown mode,
	// a malformed day).
	ErrInvalid = errors.New("invalid value")
	// ErrFenced: a write for a room carried an epoch older than the room's:
	// another node has claimed the room since, and the write is refused
	// (see Cluster). It is never retried.
	ErrFenced = errors.New("fenced: the room has a newer owner")
	// ErrOwned: a claim on a room that a live node owns.
	ErrOwned = errors.New("owned by a live node")
)

// Player is someone who played: a display name and a secret token, of which
// only a hash is kept, that lets a browser come back as the same player. A
// player is a guest until they make an account (Accounts.CreateAccount):
// then Handle is their handle as shown, HandleKey its confusables skeleton
// (unique among accounts) and AccountAt when the account was made.
type Player struct {
	ID        string
	Name      string
	TokenHash []byte
	CreatedAt time.Time
	LastSeen  time.Time
	Handle    string
	HandleKey string
	AccountAt time.Time
	// Seed is the player's own random number, from which their copy of
	// each daily puzzle (an isomorph of it) is derived.
	Seed uint64
}

// Account reports whether the player has an account.
func (p Player) Account() bool { return p.HandleKey != "" }

// Puzzle is a generated puzzle with its solution and grade. Givens and
// Solution are 81 characters ('.' for an empty cell in Givens).
type Puzzle struct {
	ID         int64
	Givens     string
	Solution   string
	Level      string
	Score      int
	Techniques map[string]int
	Seed       uint64
	CreatedAt  time.Time
	// SE is the puzzle's Sudoku Explainer rating (engine.RateSE), taken
	// when it was generated; 0 when it was not rated.
	SE engine.SERating
}

// Room states. A room's mode is one of room's rules table (room.Modes);
// the schema's CHECK lists the same names, and TestEveryModeComesBackUnsaved
// stores a room of each on both stores.
const (
	StateWaiting  = "waiting"
	StateRunning  = "running"
	StateFinished = "finished"
)

// Room is one game. StartedAt and FinishedAt are zero until they happen.
// Settings are the room's options as JSON, opaque to the store.
type Room struct {
	ID         string
	Mode       string
	PuzzleID   int64
	HostID     string
	State      string
	CreatedAt  time.Time
	StartedAt  time.Time
	FinishedAt time.Time
	Settings   json.RawMessage
	// Owner is the node that owns the room ("" for none) and Epoch the
	// number of the ownership, on the row of the room's first round (see
	// Cluster). CreateRoom of a first round with an Owner sets Epoch 1.
	// Epoch, when above 0 on an UpdateRoom or a CreateRoom of a later
	// round, fences the write: it is refused with ErrFenced unless the
	// room's epoch is still this one.
	Owner string
	Epoch int64
}

// Event is one entry of a room's ordered log. Seq is the room's sequence
// number, unique within the room; appending an event whose (RoomID, Seq) is
// already stored is a no-op, which is what makes a retried batch safe.
type Event struct {
	RoomID   string
	Seq      int64
	Type     string
	PlayerID string
	Data     json.RawMessage
	At       time.Time
	// Epoch, above 0, fences the event (see Room.Epoch).
	Epoch int64
}

// Result is one player's finish in one room. Elapsed is measured by the
// server. Day (YYYY-MM-DD, UTC) is set for the puzzle of the day only.
type Result struct {
	ID         int64
	RoomID     string
	PlayerID   string
	PuzzleID   int64
	Mode       string
	Level      string
	Elapsed    time.Duration
	Mistakes   int
	Hints      int
	Score      int
	FinishedAt time.Time
	Day        string
	// RoomRank is the finish's place in its room: a race's finishing
	// order (1 first); 1 for a co-op team and a daily room's one player.
	RoomRank int
	// Flagged marks a finish kept off every leaderboard: held for review
	// (Review "held", with its Reason), removed by a reviewer, or on a
	// puzzle the player gave.
	Flagged bool
	// PlayedDay is the date of the daily puzzle the finish was on, ranked
	// or not, when it was played on its day (not an archive day): the
	// player's streak counts these days.
	PlayedDay string
	// AllTime says the finish counts on the all-time board of its level
	// (a race of two or more, or a daily, by an account; never co-op, a
	// solo race or an own puzzle), unless Flagged.
	AllTime bool
	// Review is where the result stands in review (ReviewNone, ReviewHeld,
	// ReviewConfirmed, ReviewRemoved); Reason says why it was held, and
	// HeldDay is the daily leaderboard it was held from ("" for none),
	// which it joins when confirmed.
	Review  string
	Reason  string
	HeldDay string
	// Epoch, above 0, fences the result (see Room.Epoch).
	Epoch int64
}

// Daily is the puzzle of one UTC day and level.
type Daily struct {
	Day      string // YYYY-MM-DD
	Level    string
	PuzzleID int64
}

// Board names one day's leaderboard of a level.
type Board struct {
	Day   string // YYYY-MM-DD
	Level string
}

// Entry is one row of a leaderboard. Leaderboards order by Score (higher
// first), then by the earlier FinishedAt, then by PlayerID, so ties always
// break the same way.
type Entry struct {
	Rank       int
	PlayerID   string
	Name       string
	Score      int
	Elapsed    time.Duration
	Mistakes   int
	Hints      int
	FinishedAt time.Time
	// Guest says the player has no account (guests are ranked only when
	// the operator allows it).
	Guest bool
}

// Streak is a player's run of consecutive days on which they finished
// that day's daily puzzle (Result.PlayedDay: any finish on its day, ranked
// or not; an archive day's is not one). Current counts back from today,
// or from yesterday when today is not played yet; Longest is the longest
// run ever.
type Streak struct {
	Current int
	Longest int
	LastDay string
}

// Tally counts a player's finishes of one mode and level, for their
// record: how many (Finished), how many races they won (Won: first of two
// or more finishers; a race finished alone is no win) of how many had
// another finisher (Contested, the races a win rate counts), and their times:
// Timed is how many finishes count for them (not co-op, whose time is a
// team's, and not flagged: held or removed in review, or an own puzzle),
// Best the fastest of those and Total their sum.
type Tally struct {
	Mode      string
	Level     string
	Finished  int
	Won       int
	Contested int
	Timed     int
	Best      time.Duration
	Total     time.Duration
}

// SolvedDaily is one of a player's finishes of a daily puzzle, in any room
// and on any day: OnDay when it was played on the puzzle's day (it counts
// for the streak), not when played from the archive later.
type SolvedDaily struct {
	Day        string // the daily's YYYY-MM-DD
	Level      string
	Elapsed    time.Duration
	Mistakes   int
	Hints      int
	OnDay      bool
	FinishedAt time.Time
}

// MaxSolvedSpan is the most days DailiesSolved reads at once: a month's
// calendar, with the days of the weeks around it.
const MaxSolvedSpan = 62

// Store is everything the server persists.
type Store interface {
	Accounts
	Tournaments
	Ratings

	// Ping reports whether the database answers.
	Ping(ctx context.Context) error
	// Close releases the connections.
	Close() error

	CreatePlayer(ctx context.Context, p Player) error
	Player(ctx context.Context, id string) (Player, error)
	PlayerByToken(ctx context.Context, tokenHash []byte) (Player, error)
	// TouchPlayer records that the player was seen at the given time.
	TouchPlayer(ctx context.Context, id string, at time.Time) error
	RenamePlayer(ctx context.Context, id, name string) error

	// SavePuzzle stores a puzzle once: when its givens are stored already it
	// returns the stored puzzle and changes nothing.
	SavePuzzle(ctx context.Context, p Puzzle) (Puzzle, error)
	Puzzle(ctx context.Context, id int64) (Puzzle, error)

	// AddToPool puts stored puzzles in the pool of their level. A puzzle
	// that was ever in the pool is not added again, so none is handed out
	// twice.
	AddToPool(ctx context.Context, puzzleIDs ...int64) error
	// TakeFromPool hands out one pooled puzzle of the level, oldest first,
	// and never the same one to two callers; ErrNotFound when the pool of
	// the level is empty.
	TakeFromPool(ctx context.Context, level string) (Puzzle, error)
	// PoolSize is how many puzzles of the level wait in the pool.
	PoolSize(ctx context.Context, level string) (int, error)

	CreateRoom(ctx context.Context, r Room) error
	Room(ctx context.Context, id string) (Room, error)
	// UpdateRoom stores the room's puzzle, host, state, times and settings.
	UpdateRoom(ctx context.Context, r Room) error
	// LiveRooms lists the rooms not finished, oldest first: what a
	// restarted server brings back.
	LiveRooms(ctx context.Context) ([]Room, error)

	// AppendEvents stores events, skipping any whose (RoomID, Seq) is stored
	// already; it is atomic: all of the batch or none. Fenced events (an
	// Epoch above 0) of a room whose epoch has moved on are dropped and the
	// rest stored; the error is then a *FencedError naming those rooms.
	// The events' data must not change during the call, which may read
	// it in place. Events next to one another in the batch, of one room
	// with consecutive seqs (a room's flush), are stored in one row
	// (EventRows), which is what makes a row's cost an event's; Events
	// reads them back one by one. An event given again, alone or in
	// another run, is read back once: from the run that begins first, a
	// longer run taking the place of a shorter one that begins at the
	// same seq (a batch written in part, then whole); a retry gives the
	// same events, so what it reads is what was first stored.
	AppendEvents(ctx context.Context, events []Event) error
	// Events returns a room's events with Seq > afterSeq in order, at most
	// limit of them (limit <= 0: all), each once.
	Events(ctx context.Context, roomID string, afterSeq int64, limit int) ([]Event, error)
	// DeleteFinishedEvents deletes the events of up to maxRooms rooms that
	// finished before the time given, oldest finish first, and returns how
	// many events it deleted (0: none is left to delete; an event stored
	// twice, in two runs, counts twice). The rooms and their results
	// stay. It is the event retention: replays need a finished room's
	// events for a while, not for ever.
	DeleteFinishedEvents(ctx context.Context, before time.Time, maxRooms int) (int64, error)

	// SaveResults stores one finish (a racer's result, or all of a co-op
	// team's) in one transaction: all of them or none. There is one result
	// per room and player: a result whose room and player are stored
	// already is skipped, so a finish retried after a write that landed
	// (but whose answer was lost) stores nothing twice; any other conflict
	// (a second daily result for the same day, level and player) is
	// ErrConflict and stores none of them. The results are of one room,
	// fenced by the first one's Epoch.
	SaveResults(ctx context.Context, rs []Result) error
	// PlayerHistory is the player's results, newest first.
	PlayerHistory(ctx context.Context, playerID string, limit int) ([]Result, error)
	// PlayerHistoryBefore is the player's results older than the one
	// finished at the time given with the id given (later ids first among
	// equal times, as PlayerHistory orders them), newest first: the next
	// page of their history, read by the index on their player.
	PlayerHistoryBefore(ctx context.Context, playerID string, at time.Time, id int64, limit int) ([]Result, error)
	// PlayerBest is the player's fastest finish of each level they have
	// finished, as BestTimes counts them (AllTime results, nothing
	// flagged; ties go to the earlier finish), in no particular order.
	PlayerBest(ctx context.Context, playerID string) ([]Result, error)
	// PlayedOn is the player's finishes of the dailies of the day played
	// on that day (Result.PlayedDay: ranked, held or unranked), oldest
	// first.
	PlayedOn(ctx context.Context, playerID, day string) ([]Result, error)
	// PlayerTallies counts the player's finishes by mode and level (see
	// Tally), one row per mode and level they finished, in no particular
	// order: one pass over their results, by the index on their player.
	PlayerTallies(ctx context.Context, playerID string) ([]Tally, error)
	// DailiesSolved is the player's finishes of the daily puzzles of the
	// days from to to (inclusive, YYYY-MM-DD, at most MaxSolvedSpan days;
	// more is ErrInvalid), by day, then level, then the order they
	// finished: each of the span's dailies is looked up by its puzzle in
	// the player's results.
	DailiesSolved(ctx context.Context, playerID, from, to string) ([]SolvedDaily, error)
	// PlayerStreak counts the player's consecutive days with a finish of
	// the day's daily on its day (the results' PlayedDay, ranked or not),
	// as of today (YYYY-MM-DD).
	PlayerStreak(ctx context.Context, playerID, today string) (Streak, error)

	// SetDaily records the puzzle of a day and level unless one is recorded
	// already, and returns the one that is: callers racing to set it agree.
	SetDaily(ctx context.Context, d Daily) (Daily, error)
	Daily(ctx context.Context, day, level string) (Daily, error)

	// DailyTop is the first limit rows of a day's leaderboard for a level.
	DailyTop(ctx context.Context, day, level string, limit int) ([]Entry, error)
	// DailyCount is how many results a day's leaderboard of a level holds.
	DailyCount(ctx context.Context, day, level string) (int, error)
	// DailyAround is the player's row of a day's leaderboard with up to n
	// rows before and n after it; ErrNotFound when the player has no result.
	DailyAround(ctx context.Context, day, level, playerID string, n int) ([]Entry, error)
	// DailyRanks is the player's rank on each of the boards (a day's
	// leaderboard of a level), in the boards' order, read in one query: 0
	// where the player has no result on the board.
	DailyRanks(ctx context.Context, playerID string, boards []Board) ([]int, error)
	// BestTimes is the all-time fastest finishes of a level, one row per
	// player (their fastest), fastest first: only AllTime results count,
	// and none flagged; ties break on the earlier
	// finish, then the player ID. Rank follows that order.
	BestTimes(ctx context.Context, level string, limit int) ([]Entry, error)
}
