package server

import (
	"syscall"
	"unsafe"
)

// canFill says whether corkConn.fillFD works here.
const canFill = true

// readNonblock is read(2) of the socket fd into p, which never blocks:
// a raw system call, with none of the scheduler's bookkeeping.
func readNonblock(fd uintptr, p []byte) (int, error) {
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
}
