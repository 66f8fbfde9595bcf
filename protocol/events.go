package protocol

import (
	"encoding/json"
	"time"
)

// Event types, server to client. TypeMove, TypeNote, TypeColour, TypeHint,
// TypeCursor and TypeBerserk name events too.
const (
	TypeWelcome   = "welcome"
	TypeState     = "state"
	TypeError     = "error"
	TypeProgress  = "progress"
	TypePresence  = "presence"
	TypeCountdown = "countdown"
	TypeFinish    = "finish"
	TypePong      = "pong"
	TypeBoardFull = "board_full"
)

// Phases of a room, in the order they happen. A rematch goes from finished
// back to waiting (through preparing while the new puzzle is fetched).
const (
	PhaseWaiting   = "waiting"
	PhaseCountdown = "countdown"
	PhaseRunning   = "running"
	PhaseFinished  = "finished"
	PhasePreparing = "preparing"
)

// Presence statuses.
const (
	PresenceJoined = "joined"
	PresenceAway   = "away"
	PresenceBack   = "back"
	PresenceLeft   = "left"
)

// Header starts every server event: its type and the room's sequence
// number. Events that change the room take the next number; replies and
// passing events (pong, cursor, an error answering one client) carry the
// number of the room's latest event and are not replayed on resume.
type Header struct {
	Type string `json:"type"`
	Seq  int64  `json:"seq"`
}

// Event is any server event.
type Event interface{ Head() *Header }

func (h *Header) Head() *Header { return h }

// Welcome answers a join.
type Welcome struct {
	Header
	You You `json:"you"`
	// Resumed is true when the client's last_seq could be served from the
	// room's recent events: Replay events follow, and Room is absent.
	Resumed bool      `json:"resumed,omitempty"`
	Replay  int       `json:"replay,omitempty"`
	Room    *Snapshot `json:"room,omitempty"`
	// History is what join's history asked for: the room's recent
	// logged events that tell what happened, as the member saw them (or
	// would have, had they been there), oldest first, each with its seq;
	// moves, notes, progress and states are left out, for the snapshot
	// holds what they did. Only with a snapshot; omitted when not asked
	// for or when there is none.
	History []json.RawMessage `json:"history,omitempty"`
}

// You is the joining client's identity in the room.
type You struct {
	ID string `json:"id"`
	// Token lets the player come back as themselves (another tab, a
	// dropped connection, another room). Absent for spectators.
	Token string `json:"token,omitempty"`
	Name  string `json:"name"`
	Role  string `json:"role"`
	Host  bool   `json:"host,omitempty"`
}

// Snapshot is the room as one member may see it.
type Snapshot struct {
	ID    string `json:"id"`
	Mode  string `json:"mode"`
	Level string `json:"level"`
	// SE is the puzzle's rating on the Sudoku Explainer scale, one
	// decimal (7.1); absent when the puzzle is beyond the rater.
	SE float64 `json:"se,omitempty"`
	// Date is the UTC day (YYYY-MM-DD) of the daily puzzle the room plays,
	// or empty when it plays none.
	Date  string `json:"date,omitempty"`
	Phase string `json:"phase"`
	Round int    `json:"round"`
	Host  string `json:"host,omitempty"`
	// Roster is set on a race made for a group (a Play now match, a
	// tournament's pairing): the ids of its players, who alone join it as
	// players. StartsBy is when its first round starts by itself, with
	// those who are in, if not all are by then; absent once it has.
	Roster   []string   `json:"roster,omitempty"`
	StartsBy *time.Time `json:"starts_by,omitempty"`
	// Berserk is set on a tournament's race (its first round): its
	// players may go berserk (no notes, no hints) for a bonus point if
	// they win.
	Berserk bool `json:"berserk,omitempty"`
	// Givens is the puzzle, 81 characters, '.' for an empty cell. A race
	// shows it once the countdown is over, so that nobody gets a head start.
	Givens string `json:"givens,omitempty"`
	// Copy is the server's own: in its record of a state, the copy of the
	// daily the round plays (an isomorph's text), so that a replay of the
	// records plays it too. No client is sent it.
	Copy string `json:"copy,omitempty"`
	// Board is the member's board (race) or the shared board (co-op):
	// 81 characters, givens included. Absent for spectators of a live race.
	Board string `json:"board,omitempty"`
	// Notes are the member's (race) or the shared (co-op) pencil marks of
	// the cells that have any.
	Notes []CellNotes `json:"notes,omitempty"`
	// Colours are the shared board's cell colours (co-op) of the cells
	// that have any. Absent in a race: a racer's colours stay in their
	// browser.
	Colours []CellColours `json:"colours,omitempty"`
	// PlacedBy says who placed each digit of a shared board (co-op): each
	// player's id with the cells, ascending, that hold a digit they
	// placed. Givens and empty cells are nobody's. Absent in a race (a
	// racer's board is theirs alone) and while no digit is placed. Keyed
	// by player so that each id is sent once, not once per digit.
	PlacedBy map[string][]int `json:"placed_by,omitempty"`
	// Solution is present once the room is finished, never before.
	Solution string `json:"solution,omitempty"`
	// StartsAt is when the countdown ends and play starts, StartedAt when
	// it did, FinishedAt when the room finished.
	StartsAt   *time.Time `json:"starts_at,omitempty"`
	StartedAt  *time.Time `json:"started_at,omitempty"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
	// Now is the server's clock when the snapshot was taken, so a client
	// can show the room's clock without trusting its own.
	Now     time.Time    `json:"now"`
	Players []PlayerView `json:"players"`
	// Spectators is how many watch.
	Spectators int `json:"spectators"`
	// HintPenaltyMS is how long a hint freezes a racer's board.
	HintPenaltyMS int64 `json:"hint_penalty_ms,omitempty"`
}

// PlayerView is one player as every member sees them.
type PlayerView struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Connected bool   `json:"connected"`
	Progress
	// Board is the player's board, shown to everyone once a race is over.
	Board string `json:"board,omitempty"`
	// Rank, ElapsedMS are set once the player has finished a race (or the
	// team a co-op game).
	Rank      int   `json:"rank,omitempty"`
	ElapsedMS int64 `json:"elapsed_ms,omitempty"`
	// FrozenUntil is when a racer's hint penalty ends.
	FrozenUntil *time.Time `json:"frozen_until,omitempty"`
	// Ranked is set in a room on a daily puzzle only: whether the
	// player's finish counts on the day's leaderboard.
	Ranked *bool `json:"ranked,omitempty"`
	// Since is set on a player of a daily whose ranked attempt began
	// before this round (they were first shown the board in another room,
	// or earlier): their clock runs from it, not from started_at.
	Since *time.Time `json:"since,omitempty"`
	// Guest is set on a player without an account, shown as a guest.
	Guest bool `json:"guest,omitempty"`
	// Berserk is set on a player who went berserk this round.
	Berserk bool `json:"berserk,omitempty"`
	// Review is "held" on a finish kept off the leaderboards until a
	// person looks at it (it did not look like a person's).
	Review string `json:"review,omitempty"`
}

// Progress is what everyone sees of a player's game.
type Progress struct {
	// Filled is how many of the puzzle's empty cells hold a digit, of
	// Empty. In co-op, Filled counts the digits the player placed that
	// are still on the shared board.
	Filled int `json:"filled"`
	Empty  int `json:"empty"`
	// Mistakes is how many digits the player placed that are not the
	// solution's. It is nil (omitted) where it may not be told yet: in a
	// race, until the player's finish (see room's rules.liveMistakes).
	Mistakes *int `json:"mistakes,omitempty"`
	Hints    int  `json:"hints"`
	Moves    int  `json:"moves"`
}

// CellNotes are one cell's pencil marks.
type CellNotes struct {
	Cell   int   `json:"cell"`
	Corner []int `json:"corner,omitempty"`
	Centre []int `json:"centre,omitempty"`
}

// CellColours are the colours (1 to 9, in order) one cell is given.
type CellColours struct {
	Cell    int   `json:"cell"`
	Colours []int `json:"colours,omitempty"`
}

// State is the room's snapshot, sent to each member when the phase
// changes (the countdown ends, the room finishes, a rematch is ready).
type State struct {
	Header
	Room Snapshot `json:"room"`
}

// MoveEvent is a digit placed or cleared. In a race only the mover sees it.
type MoveEvent struct {
	Header
	ID     json.RawMessage `json:"id,omitempty"`
	Player string          `json:"player"`
	Cell   int             `json:"cell"`
	Digit  int             `json:"digit"`
	// Undo or Redo say the move came from undo or redo.
	Undo bool `json:"undo,omitempty"`
	Redo bool `json:"redo,omitempty"`
	// Cleared are the peers whose notes lost the digit.
	Cleared []int `json:"cleared,omitempty"`
}

// NoteEvent is a cell's pencil marks after a note message. In a race only
// the player sees it.
type NoteEvent struct {
	Header
	ID     json.RawMessage `json:"id,omitempty"`
	Player string          `json:"player"`
	CellNotes
}

// ColourEvent is a cell's colours after a colour message, in co-op (the
// only mode that shares them).
type ColourEvent struct {
	Header
	ID     json.RawMessage `json:"id,omitempty"`
	Player string          `json:"player"`
	CellColours
}

// ErrorEvent reports a refused message: a stable Code, a human Message,
// and the cells concerned. A conflict is told to the whole room, naming
// Player; any other error only answers the client that sent the message.
type ErrorEvent struct {
	Header
	ID      json.RawMessage `json:"id,omitempty"`
	Code    string          `json:"code"`
	Message string          `json:"message"`
	Player  string          `json:"player,omitempty"`
	Cell    *int            `json:"cell,omitempty"`
	Cells   []int           `json:"cells,omitempty"`
	Digit   int             `json:"digit,omitempty"` // a conflict's digit, where the viewer may know it
}

// HintEvent is a hint a player asked for. The player gets it all; in a race
// the others learn who asked and the technique, not the cells and digits.
type HintEvent struct {
	Header
	ID     json.RawMessage `json:"id,omitempty"`
	Player string          `json:"player"`
	// Step is the hint: its Technique, TechniqueName, Explanation, Cells,
	// Place and Eliminate, none of them in a race's view for the others.
	Step
	// Wrong are the team's cells that do not match the solution (co-op
	// only: a contest's hint says that a digit is wrong, not which); the
	// hint then says only that.
	Wrong []int `json:"wrong,omitempty"`
	Hints int   `json:"hints"`
	// FrozenUntil is when the racer may place digits again.
	FrozenUntil *time.Time `json:"frozen_until,omitempty"`
}

// ProgressEvent is a player's progress after a move or hint.
type ProgressEvent struct {
	Header
	Player string `json:"player"`
	Progress
}

// PresenceEvent says a member joined, dropped (away), came back or left.
// Host is the room's host after the change: when the host leaves, the role
// passes on in the same event.
type PresenceEvent struct {
	Header
	Player string `json:"player"`
	Name   string `json:"name"`
	Role   string `json:"role"`
	Status string `json:"status"`
	Host   string `json:"host,omitempty"`
	// Guest is set on a player without an account, shown as a guest.
	Guest bool `json:"guest,omitempty"`
	// Until is when an away player's place is given up.
	Until *time.Time `json:"until,omitempty"`
}

// BerserkEvent is a racer going berserk: no notes and no hints for them
// this round, for a bonus point in the tournament if they win.
type BerserkEvent struct {
	Header
	Player string `json:"player"`
}

// CursorEvent is where a co-op player's cursor is.
type CursorEvent struct {
	Header
	Player string `json:"player"`
	Cell   int    `json:"cell"`
}

// CountdownEvent starts the countdown: play starts at StartsAt by the
// server's clock, Seconds after Now.
type CountdownEvent struct {
	Header
	Seconds  float64   `json:"seconds"`
	StartsAt time.Time `json:"starts_at"`
	Now      time.Time `json:"now"`
}

// FinishEvent is a player's finish (race) or the team's (co-op, Player
// absent). Rank is by finishing order; the result is stored before this
// event is sent.
type FinishEvent struct {
	Header
	Player    string `json:"player,omitempty"`
	Rank      int    `json:"rank,omitempty"`
	ElapsedMS int64  `json:"elapsed_ms"`
	Mistakes  int    `json:"mistakes"`
	Hints     int    `json:"hints"`
	Score     int    `json:"score"`
}

// BoardFullEvent tells a racer, and nobody else, that their board is full
// but is not the solution: without it a player who may not see their
// mistakes could not tell a wrong board from a finish still being stored.
// It names no cell and no count; a hint names the wrong cells, at a
// hint's price. It takes no seq of its own, so the room's numbering does
// not tell the others either.
type BoardFullEvent struct {
	Header
	Message string `json:"message"`
}

// Pong answers a ping.
type Pong struct {
	Header
	ID  json.RawMessage `json:"id,omitempty"`
	Now time.Time       `json:"now"`
}
