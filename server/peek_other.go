//go:build !linux

package server

// canPeek says whether peekFD works here: elsewhere than on Linux the
// reader waits inside coder/websocket's read.
const canPeek = false

func (c *corkConn) peekFD(uintptr) bool { return true }
