package server

import (
	"net/http"

	"github.com/sudoku-arena/arena/protocol"
)

// Brake is what tells the server to take no new work: the room event log,
// saturated when it holds so much not yet stored that a move taken now
// might not be (store.EventLog). While it is on, moves and the other
// messages that change a game, joins of players new to a room and new
// rooms are refused with overloaded, before anything is applied, so that
// what the server acknowledges is what it stores; the client tries again
// in a moment. It goes off by itself once the log has drained.
type Brake interface {
	// Saturated reports whether new work is refused now.
	Saturated() bool
	// Refused counts one refusal.
	Refused()
}

// Lease is a node's right, as one of several, to take what changes its
// rooms (cluster.Node): held while its heartbeat reaches the database in
// time and its event log's writes go through, so that no other node can
// have taken its rooms over and what it acknowledges is stored. While it
// is not held, what the brake refuses is refused with retry.
type Lease interface {
	// Held reports whether the node may take new work now (counting a
	// refusal when it may not).
	Held() bool
}

// SetBrake gives the server its brake (none until set). Call it before
// serving.
func (s *Server) SetBrake(b Brake) { s.brake = b }

// retryOverloaded is the Retry-After of an overloaded refusal, in seconds:
// a saturated log drains in seconds once the database keeps up.
const retryOverloaded = "2"

// overloaded reports whether new work must be refused now, counting the
// refusal when it must.
func (s *Server) overloaded() bool {
	if s.brake == nil || !s.brake.Saturated() {
		return false
	}
	s.brake.Refused()
	s.metrics.overloaded.Inc()
	return true
}

// refusal is why new work must be refused now, nil when it need not: the
// node's lease is not held (retry), or the brake is on (overloaded).
func (s *Server) refusal() *protocol.Error {
	if s.lease != nil && !s.lease.Held() {
		return protocol.Errorf(protocol.CodeRetry, "this server cannot be sure just now that it stores what it takes: nothing was done; try again in a moment")
	}
	if s.overloaded() {
		return errOverloaded()
	}
	return nil
}

// writeRefusalNow answers an HTTP request refused by refusal, with its
// Retry-After.
func writeRefusalNow(w http.ResponseWriter, e *protocol.Error) {
	if e.Code == protocol.CodeOverloaded {
		writeOverloaded(w)
		return
	}
	w.Header().Set("Retry-After", "1")
	writeError(w, e.Code, "this server cannot be sure just now that it stores what it takes: try again in a moment")
}

// errOverloaded is a refusal of a message while the brake is on.
func errOverloaded() *protocol.Error {
	return protocol.Errorf(protocol.CodeOverloaded, "the server is behind on storing games: nothing was done; try again in a moment")
}

// writeOverloaded answers an HTTP request refused while the brake is on.
func writeOverloaded(w http.ResponseWriter) {
	w.Header().Set("Retry-After", retryOverloaded)
	writeError(w, protocol.CodeOverloaded, "the server is behind on storing games: try again in a few seconds")
}

// changesGame reports whether a message of the type changes a game, and
// so is refused while the brake is on. Cursors, pings and leaving are not:
// a cursor is not stored, and leaving must always be possible.
func changesGame(typ string) bool {
	switch typ {
	case protocol.TypeMove, protocol.TypeNote, protocol.TypeColour, protocol.TypeHint, protocol.TypeUndo, protocol.TypeRedo,
		protocol.TypeStart, protocol.TypeRematch, protocol.TypeBerserk:
		return true
	}
	return false
}
