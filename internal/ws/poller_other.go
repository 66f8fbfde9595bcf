//go:build !linux

package ws

import "errors"

// pollSet is not built here: NewPoller fails, and every connection keeps
// its reader, which waits in the socket's own read (Conn.fillConn).
type pollSet struct{}

func openPollSet() (*pollSet, error) { return nil, errors.ErrUnsupported }

func (*pollSet) add(uintptr, int32, uint32) error { return errors.ErrUnsupported }

func (*pollSet) remove(uintptr) {}

func (*pollSet) close() error { return nil }

func (p *Poller) run() { close(p.ran) }
