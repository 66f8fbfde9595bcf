package arenatest

import (
	"fmt"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"
)

// TCPProxy stands between a process and a TCP server (a node and
// PostgreSQL) as the network between them does, and lets a test cut that
// network: Cut is a partition, Heal its end.
//
// A cut forwards nothing either way and refuses nothing: what is sent
// waits (in the proxy's sockets' buffers, as in the sender's while TCP
// retransmits), a connection opened meanwhile is accepted and reaches the
// target only once healed, and no connection is reset, so that each side
// sees silence and gives up by its own timeouts, as behind a real
// partition. Heal lets it all through: the connections that neither side
// closed go on, and what waited is delivered then, late, a closing
// included. That is what TCP does after a partition shorter than its
// retransmission timeout (minutes): it delivers what was sent late rather
// than losing it, so a statement sent into the partition reaches the
// server after it heals, when the world may have moved on (another node
// has the rooms), which is the case the fencing must refuse. Closing the
// connections at Heal would spare the client that case.
type TCPProxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	open   chan struct{} // closed while the link is up; a fresh one at each Cut
	done   chan struct{} // closed by Close
	closed bool
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
}

// StartTCPProxy listens on a loopback port and forwards each connection
// to target (host:port), until the test ends.
func StartTCPProxy(tb testing.TB, target string) *TCPProxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("arenatest: tcp proxy: %v", err)
	}
	p := &TCPProxy{ln: ln, target: target, open: make(chan struct{}), done: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	close(p.open)
	p.wg.Add(1)
	go p.accept()
	tb.Cleanup(p.Close)
	return p
}

// Addr is the address the proxy listens on.
func (p *TCPProxy) Addr() string { return p.ln.Addr().String() }

// Via is databaseURL (postgres://…) reaching its server through the
// proxy: its host and port are the proxy's.
func (p *TCPProxy) Via(databaseURL string) (string, error) {
	u, err := url.Parse(databaseURL)
	if err != nil {
		return "", fmt.Errorf("arenatest: tcp proxy: database URL: %w", err)
	}
	if u.Host == "" {
		return "", fmt.Errorf("arenatest: tcp proxy: database URL %s names no host", u.Redacted())
	}
	u.Host = p.Addr()
	return u.String(), nil
}

// Cut stops forwarding, both ways, on every connection and on those
// opened while it lasts, until Heal.
func (p *TCPProxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.open:
		p.open = make(chan struct{})
	default: // cut already
	}
}

// Heal forwards again: what waited goes through, and the connections
// opened during the cut reach the target.
func (p *TCPProxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.open:
	default:
		close(p.open)
	}
}

// Close stops listening and closes every connection, cut or not.
func (p *TCPProxy) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	close(p.done)
	p.ln.Close()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// up waits until the link is up and reports true, or false once the
// proxy is closed.
func (p *TCPProxy) up() bool {
	p.mu.Lock()
	open := p.open
	p.mu.Unlock()
	select {
	case <-open:
		select {
		case <-p.done:
			return false
		default:
			return true
		}
	case <-p.done:
		return false
	}
}

// track adds c to the connections Close closes, or closes it and reports
// false when the proxy is closed already.
func (p *TCPProxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *TCPProxy) untrack(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		delete(p.conns, c)
		c.Close()
	}
}

func (p *TCPProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		if !p.track(c) {
			return
		}
		p.wg.Add(1)
		go p.serve(c)
	}
}

// serve forwards one client connection: it reaches the target only
// while the link is up, and each way stops at a cut.
func (p *TCPProxy) serve(client net.Conn) {
	defer p.wg.Done()
	if !p.up() {
		p.untrack(client)
		return
	}
	server, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil || !p.track(server) {
		p.untrack(client)
		return
	}
	var both sync.WaitGroup
	both.Add(1)
	go func() {
		defer both.Done()
		p.pump(client, server)
	}()
	p.pump(server, client)
	both.Wait()
	p.untrack(client, server)
}

// pump copies src to dst while the link is up: it reads nothing during a
// cut, so what is sent waits in the sockets' buffers, and holds what it
// read when the cut came until the link is up again. The end of src (a
// close) reaches dst the same way, late during a cut; a write that fails
// ends both ways.
func (p *TCPProxy) pump(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for p.up() {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.up() {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				src.Close()
				dst.Close()
				return
			}
		}
		if err != nil {
			if !p.up() {
				return
			}
			if tcp, ok := dst.(*net.TCPConn); ok {
				_ = tcp.CloseWrite()
			} else {
				dst.Close()
			}
			return
		}
	}
}
