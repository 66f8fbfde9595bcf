package protocol

// CloseCode is a WebSocket close code the server closes a connection with:
// RFC 6455's own (1000 to 1011) or the arena's (4000 and up).
type CloseCode uint16

// Close codes: docs/protocol.md has the table, with whether to reconnect.
const (
	CloseNormal          CloseCode = 1000 // left the room
	CloseGoingAway       CloseCode = 1001 // server restarting: retry after the hint
	CloseProtocolError   CloseCode = 1002 // a frame broke RFC 6455
	CloseInvalidData     CloseCode = 1007 // a text message (or a close's reason) not in UTF-8
	ClosePolicyViolation CloseCode = 1008 // a message in too many frames
	CloseTooBig          CloseCode = 1009 // a message over the read limit
	CloseTooSlow         CloseCode = 4001 // the send queue filled up: resume with token and last seq
	CloseReplaced        CloseCode = 4002 // the same player connected elsewhere
	CloseRoomEnded       CloseCode = 4003 // the room ended
	CloseRateLimited     CloseCode = 4004 // kept sending past the rate limit
	CloseJoinTimeout     CloseCode = 4006 // joined no room in time
	CloseIdle            CloseCode = 4007 // did not answer a ping in time: resume when back
	// CloseTooManySockets: the client's address holds as many WebSockets
	// as it may (SOCKETS_PER_ADDR).
	CloseTooManySockets CloseCode = 4008
	// CloseMoved: another node owns the room now; reconnect at once with
	// the token and last seq, through any node.
	CloseMoved CloseCode = 4009
)
