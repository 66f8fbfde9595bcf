// Package ws is the WebSocket transport (RFC 6455) that the server speaks
// itself, on the bytes of the socket rather than through a library's
// connection:
//
//   - the handshake (Accept), which answers a client's upgrade request or
//     refuses it with 426, 400, 405 or 403;
//   - the frames (Parse, AppendHeader, AppendClose, ...), which the load
//     generator's client uses too;
//   - a connection (Conn): its reading (Next, which takes the client's
//     frames, answers pings, joins fragments and enforces the limits), its
//     corked writes (Cork, WriteText, Uncork, TryWrite) and its close
//     handshake (CloseHandshake);
//   - the Poller, an epoll set owned by whoever makes it (a server), in
//     which an idle connection's socket waits with no goroutine reading it,
//     and its pool of reader goroutines, which read a connection again once
//     its socket has bytes.
//
// What a message means, and the close codes an application picks, are the
// caller's: the transport sends its own statuses (StatusProtocolError,
// StatusInvalidData, StatusPolicyViolation and StatusTooBig for a client
// that broke a rule) and takes any other as a plain number.
//
// docs/protocol.md is the contract; `go test ./internal/ws -run
// Conformance -v` checks the transport against RFC 6455 case by case.
package ws

import "time"

// StatusCode is a close frame's status code (RFC 6455, section 7.4): one
// of the RFC's below, or an application's (4000-4999), which the
// transport carries as a plain number.
type StatusCode uint16

// The RFC's status codes the transport sends or reads itself.
const (
	// StatusNormal is a normal closure.
	StatusNormal StatusCode = 1000
	// StatusGoingAway is an endpoint going away (a server restarting).
	StatusGoingAway StatusCode = 1001
	// StatusProtocolError closes for a frame that broke RFC 6455.
	StatusProtocolError StatusCode = 1002
	// StatusNoStatus is a close frame with no status in it, which is
	// sent as an empty frame; no peer may put it in a close frame.
	StatusNoStatus StatusCode = 1005
	// StatusInvalidData closes for a text message, or a close frame's
	// reason, that is not UTF-8 (RFC 6455, section 8.1).
	StatusInvalidData StatusCode = 1007
	// StatusPolicyViolation closes for a message that broke the
	// transport's bounds on its making: more than MaxMessageFrames
	// frames, or not whole in its time (Conn.SetMessageTimeout).
	StatusPolicyViolation StatusCode = 1008
	// StatusTooBig closes for a message over the read limit.
	StatusTooBig StatusCode = 1009
)

// MaxMessageFrames is the most frames a client's message may come in.
// Fragments are rare (a browser never sends them), and a message that
// never ends in frames that hold nothing would be no message at all: no
// limit on its size, and no rate limit, would ever stop it.
const MaxMessageFrames = 64

// A client's pings are answered, each with a pong the server writes, and
// are no message: the rate limit, which counts messages, never sees them.
// So they have a budget of their own (SetPingBudget): by default
// PingBurst at once, then one each PingEvery; a ping beyond it closes the
// connection with 1008. A keep-alive ping every few seconds is far
// inside it.
const (
	PingBurst = 10
	PingEvery = time.Second
)
