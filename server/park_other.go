//go:build !linux

package server

// poller is not built here: every connection keeps its reader, which
// waits in the socket's own read (corkConn.fillConn).
type poller struct{}

func readPoller() *poller { return nil }

func (p *poller) add(*conn) bool { return false }

func (p *poller) remove(*conn) {}
