// Package room is the game: a room's rules and state, and the goroutine
// that runs it.
//
// Game is one room as a plain state machine, with no goroutine and no I/O:
// its members, boards and phases, the rules of each mode (a race, co-op,
// the daily played alone), hints, scores, and what each member may see of
// each event (view). It takes messages that package protocol's Decode has
// checked, and queues events (protocol's types) and the storage work it
// needs (Effect).
//
// Room is the goroutine that owns a Game: every command reaches it on a
// channel, it encodes each event once and sends the frames to its members'
// connections (Conn, whatever the server makes of a socket), and it does
// the game's storage work beside it through the Store it is given. The
// Registry holds the live rooms of a process, makes and evicts them, and
// brings them back after a restart from their saved state and the events
// recorded since (Saved, Record, Restore, Rebuild).
package room
