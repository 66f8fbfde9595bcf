package server

import (
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// The per-address limits. Each one bounds something a client can make the
// server keep (a room, a stored player, an open socket), so that one address
// cannot take what all the others need. They key on clientAddr: the socket's
// peer. Behind a proxy every client shares the proxy's address; turn these
// limits off (0) there and limit at the proxy instead.

// clientAddr is the key the per-address limits count a request under: the
// peer's IPv4 address, or the /64 its IPv6 address is in. One IPv6 host is
// usually handed a whole /64 and can pick any address in it, so counting
// single IPv6 addresses would not limit it at all.
func clientAddr(r *http.Request) string {
	return addrKey(r.RemoteAddr)
}

// addrKey is clientAddr for an address as http.Request.RemoteAddr holds it
// (IP:port, or a bare IP). IPv4-mapped IPv6 addresses count as their IPv4
// address; anything that is not an IP is its own key.
func addrKey(remote string) string {
	host := remote
	if h, _, err := net.SplitHostPort(remote); err == nil {
		host = h
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.WithZone("").Unmap()
	if ip.Is4() {
		return ip.String()
	}
	return netip.PrefixFrom(ip, 64).Masked().String()
}

// addrLimiter is a token bucket per client address, for requests that cost
// the server something lasting (a room holds a goroutine, a stored row and a
// pooled puzzle; a new player is a stored row and events). Buckets that have
// refilled are forgotten, so memory stays bounded by the addresses active
// within one refill period.
type addrLimiter struct {
	perMinute float64
	burst     float64

	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
}

// newAddrLimiter allows perMinute a minute per address, in bursts of burst;
// a perMinute of 0 is no limit (a nil limiter).
func newAddrLimiter(perMinute, burst int) *addrLimiter {
	if perMinute <= 0 {
		return nil
	}
	return &addrLimiter{perMinute: float64(perMinute), burst: float64(burst), buckets: map[string]*bucket{}}
}

// allow takes a token for the address (a clientAddr key); a nil limiter
// allows everything.
func (l *addrLimiter) allow(addr string, now time.Time) bool {
	if l == nil {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	refill := time.Duration(l.burst / l.perMinute * float64(time.Minute))
	if now.Sub(l.swept) > refill {
		for a, b := range l.buckets {
			if now.Sub(b.last) > refill {
				delete(l.buckets, a)
			}
		}
		l.swept = now
	}
	b, ok := l.buckets[addr]
	if !ok {
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[addr] = b
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.last).Minutes()*l.perMinute)
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// addrCounter counts what each client address holds at once (open sockets,
// live rooms) against a bound. An address is forgotten when it holds
// nothing, so memory stays bounded by the addresses holding something.
type addrCounter struct {
	max int

	mu   sync.Mutex
	held map[string]int
}

// newAddrCounter bounds each address to max at once; a max of 0 is no bound
// (a nil counter).
func newAddrCounter(max int) *addrCounter {
	if max <= 0 {
		return nil
	}
	return &addrCounter{max: max, held: map[string]int{}}
}

// acquire counts one more for the address, or reports that it holds its
// bound already. Each true must be followed by one release.
func (c *addrCounter) acquire(addr string) bool {
	if c == nil {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held[addr] >= c.max {
		return false
	}
	c.held[addr]++
	return true
}

// release gives back what acquire counted.
func (c *addrCounter) release(addr string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held[addr]--; c.held[addr] <= 0 {
		delete(c.held, addr)
	}
}
