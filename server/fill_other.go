//go:build !linux

package server

import "errors"

// canFill says whether corkConn.fillFD works here: elsewhere than on
// Linux the reader waits inside coder/websocket's read, and reads go to
// the socket as they are.
const canFill = false

func readNonblock(uintptr, []byte) (int, error) {
	return 0, errors.ErrUnsupported
}

func writeNonblock(uintptr, []byte) (int, error) {
	return 0, errors.ErrUnsupported
}
