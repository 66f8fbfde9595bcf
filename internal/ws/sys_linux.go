package ws

import (
	"syscall"
	"unsafe"
)

// canFill says whether Conn.fillFD works here.
const canFill = true

// readNonblock is read(2) of the socket fd into p, which never blocks:
// a raw system call, with none of the scheduler's bookkeeping.
func readNonblock(fd uintptr, p []byte) (int, error) {
	n, err := rawCall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), 0, 0, 0)
	return int(n), err
}

// writeNonblock is write(2) of p to the socket fd, which never blocks:
// it writes what the socket's buffer takes, 0 and EAGAIN when it is full.
func writeNonblock(fd uintptr, p []byte) (int, error) {
	n, err := rawCall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), 0, 0, 0)
	return int(n), err
}

// rawCall makes a system call that does not block, again when a signal
// interrupts it.
func rawCall(trap, a1, a2, a3, a4, a5, a6 uintptr) (uintptr, error) {
	for {
		n, _, errno := syscall.RawSyscall6(trap, a1, a2, a3, a4, a5, a6)
		switch errno {
		case 0:
			return n, nil
		case syscall.EINTR:
			continue
		}
		return 0, errno
	}
}
