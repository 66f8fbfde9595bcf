// Package protocol is the arena's wire protocol, docs/protocol.md in Go:
// what a client and the server say to each other over a WebSocket, and the
// codes they say it with.
//
//   - The messages a client sends: Msg, its Type constants, and Check, the
//     shape every message must have (a known type, each field it needs
//     present and in range).
//   - The events the server sends: Header and the event structs (Welcome,
//     State, MoveEvent, HintEvent, ErrorEvent, ...), with the values they
//     carry (phases, roles, presence statuses, note kinds).
//   - The error codes and Error, a refused message; the close codes
//     (CloseCode) a connection ends with.
//   - The codec. Decode reads one frame into a checked Msg: the server
//     calls it at its edge, once per message, and a room takes what it
//     returns as checked. AppendEvent writes one event. Both do the
//     frames sent on every move by hand, since encoding/json's reflection
//     was most of what a move cost, and leave the rest to encoding/json;
//     tests and fuzzers hold the two to the same result, byte for byte.
//     DecodeObject is the one-JSON-object rule the HTTP API's bodies share.
//   - Step, one logical step of the solver in the one spelling a hint
//     event, the solver lab's API and the command line share.
//
// It holds no rules of the game and no transport: package room plays the
// game and package server carries the frames. Room, server, the load
// generator (internal/loadtest) and the tests import it.
package protocol
