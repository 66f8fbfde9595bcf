package server

import (
	"syscall"
	"unsafe"
)

// canFill says whether fillFD works here.
const canFill = true

// fillFD is fillFrom with a non-blocking read(2) of the socket fd: a raw
// system call, since the socket never blocks.
func (c *corkConn) fillFD(fd uintptr) bool {
	return c.fillFrom(fd, func(fd uintptr, p []byte) (int, error) {
		for {
			n, _, errno := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			switch errno {
			case 0:
				return int(n), nil
			case syscall.EINTR:
				continue
			}
			return 0, errno
		}
	})
}
