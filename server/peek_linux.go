package server

import (
	"syscall"
	"unsafe"
)

// canPeek says whether peekFD works here.
const canPeek = true

// peekFD reports whether the socket has a byte to read, or an error or
// end to report, without taking it and without blocking: false asks
// RawConn.Read to wait until it does.
func (c *corkConn) peekFD(fd uintptr) bool {
	_, _, errno := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&c.one[0])), 1,
		syscall.MSG_PEEK|syscall.MSG_DONTWAIT, 0, 0)
	return errno != syscall.EAGAIN
}
