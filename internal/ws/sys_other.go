//go:build !linux

package ws

import "errors"

// canFill says whether Conn.fillFD works here: elsewhere than on
// Linux the reader waits in the socket's own read (Conn.fillConn).
const canFill = false

func readNonblock(uintptr, []byte) (int, error) {
	return 0, errors.ErrUnsupported
}

func writeNonblock(uintptr, []byte) (int, error) {
	return 0, errors.ErrUnsupported
}
