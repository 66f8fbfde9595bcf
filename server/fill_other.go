//go:build !linux

package server

import "errors"

// canFill says whether corkConn.fillFD works here: elsewhere than on
// Linux the reader waits in the socket's own read (corkConn.fillConn).
const canFill = false

func readNonblock(uintptr, []byte) (int, error) {
	return 0, errors.ErrUnsupported
}

func writeNonblock(uintptr, []byte) (int, error) {
	return 0, errors.ErrUnsupported
}
