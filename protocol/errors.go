package protocol

import "fmt"

// Error codes: stable strings clients may rely on. docs/protocol.md has the
// table; a test keeps it and this list in step.
const (
	// Shape of a message (checked by the server before the room sees it).
	CodeBadJSON     = "bad_json"     // the frame is not one JSON object
	CodeUnknownType = "unknown_type" // no such message type
	CodeBadField    = "bad_field"    // a field is missing, of the wrong type, or out of range
	CodeRateLimited = "rate_limited" // too many messages; slow down

	// Joining.
	CodeNotJoined     = "not_joined"     // the connection has not joined a room yet
	CodeAlreadyJoined = "already_joined" // the connection is in a room already
	CodeWrongRoom     = "wrong_room"     // the message names a room the connection is not in
	CodeRoomNotFound  = "room_not_found" // no live room has that id
	CodeBadToken      = "bad_token"      // the token is not a player's
	CodeBadName       = "bad_name"       // the display name is empty, too long or has control characters
	CodeRoomFull      = "room_full"      // the room has as many players (or spectators) as it takes
	CodeGameStarted   = "game_started"   // a race cannot be joined as a player once it has started
	CodeNotInvited    = "not_invited"    // a race made for a group (Play now, a tournament) takes only its players

	// Playing.
	CodeSpectator     = "spectator"       // spectators watch; they cannot play
	CodeNotHost       = "not_host"        // only the host can start or rematch
	CodeStartsItself  = "starts_itself"   // start sent to a race made for a group: it starts by itself once they are in
	CodeNotStarted    = "not_started"     // the game has not started yet
	CodeAlreadyStart  = "already_started" // start sent to a room that is counting down or running
	CodeFinished      = "finished"        // the game (or the player's race) is over
	CodeNotFinished   = "not_finished"    // rematch before anyone has finished
	CodePreparing     = "preparing"       // the rematch's puzzle is on its way
	CodeGivenCell     = "given_cell"      // the cell is one of the puzzle's givens
	CodeCellFilled    = "cell_filled"     // notes on a cell that holds a digit
	CodeConflict      = "conflict"        // the digit is already in the cell's row, column or box
	CodeFrozen        = "frozen"          // a racer's hint penalty is running
	CodeBerserk       = "berserk"         // a note or hint from a player who went berserk
	CodeCannotBerserk = "cannot_berserk"  // berserk outside a tournament's race, after a first digit, note or hint, or twice
	CodeNothingToUndo = "nothing_to_undo"
	CodeNothingToRedo = "nothing_to_redo"
	CodeUndoStale     = "undo_stale"  // someone else has changed the cell since
	CodeCoopOnly      = "coop_only"   // cursors and colours are shared in co-op rooms only
	CodeUnavailable   = "unavailable" // the server could not do it now (a puzzle, the database); try again
	CodeOverloaded    = "overloaded"  // the server is behind on storing what it took: nothing was done; try again in a moment
	CodeRetry         = "retry"       // the server cannot be sure just now that it still holds the room: nothing was done; try again in a moment

	// Making rooms (HTTP).
	CodeServerFull     = "server_full"      // the server holds as many live rooms as it may
	CodeTooManyRooms   = "too_many_rooms"   // the client's address has as many live rooms as it may
	CodePlayerNotFound = "player_not_found" // no player has that id

	// Tournaments (the HTTP API).
	CodeTournamentNotFound = "tournament_not_found" // no tournament has that id
	CodeTournamentOver     = "tournament_over"      // the tournament has ended: nobody joins or withdraws
	CodeNotInTournament    = "not_in_tournament"    // withdraw by a player who has not joined

	// Puzzles given by a player (a room on their own puzzle, the lab).
	CodeBadPuzzle     = "bad_puzzle"     // the text is not a puzzle: the parser says which cell and why
	CodeNoSolution    = "no_solution"    // the puzzle has no solution
	CodeManySolutions = "many_solutions" // the puzzle has more than one solution
	// Replays (HTTP).
	CodeReplayLive    = "replay_live"    // the round is still being played: no replay until it is over
	CodeReplayExpired = "replay_expired" // the round's events were deleted (EVENT_RETENTION)

	// Accounts and sessions (HTTP).
	CodeBadHandle      = "bad_handle"      // the handle is refused: the message says why
	CodeHandleTaken    = "handle_taken"    // another account's handle is the same or looks the same
	CodeAlreadyAccount = "already_account" // a sign-up by a session that is an account's already
	CodeNotSignedIn    = "not_signed_in"   // the route needs the session of an account
	CodeBadOrigin      = "bad_origin"      // a request with the session cookie from an Origin that is not allowed
	CodePasskeyFailed  = "passkey_failed"  // the passkey ceremony did not verify, expired or was used
	CodeBadCode        = "bad_code"        // the sign-in or recovery code is unknown, used or expired

	// Play now: the matchmaking queue (HTTP).
	CodeAlreadyQueued  = "already_queued"   // the player, or their account, waits in the queue already
	CodeTicketNotFound = "ticket_not_found" // no such ticket: it was left, or its match is over

	// Any request (HTTP).
	CodeBadContentType = "bad_content_type" // a POST or DELETE of the API whose Content-Type is not application/json
	CodeWrongHost      = "wrong_host"       // the request's Host is not PUBLIC_URL's
)

// Error is a refused message: a stable Code, a human Message, and the cells
// it concerns. It changes nothing in the room.
type Error struct {
	Code    string
	Message string
	Cell    *int
	Cells   []int
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf is an Error with a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Event is the error as an event for the client.
func (e *Error) Event(seq int64, id []byte) *ErrorEvent {
	return &ErrorEvent{
		Header:  Header{Type: TypeError, Seq: seq},
		ID:      id,
		Code:    e.Code,
		Message: e.Message,
		Cell:    e.Cell,
		Cells:   e.Cells,
	}
}
