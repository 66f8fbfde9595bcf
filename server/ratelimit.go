package server

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// addrLimiter is a token bucket per client address, for requests that cost
// the server something lasting (a room holds a goroutine, a stored row and a
// pooled puzzle). Buckets that have refilled are forgotten, so memory stays
// bounded by the addresses active within one refill period.
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

func newAddrLimiter(perMinute, burst int) *addrLimiter {
	return &addrLimiter{perMinute: float64(perMinute), burst: float64(burst), buckets: map[string]*bucket{}}
}

// allow takes a token for the request's client address; a nil limiter
// allows everything.
func (l *addrLimiter) allow(r *http.Request, now time.Time) bool {
	if l == nil {
		return true
	}
	addr, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		addr = r.RemoteAddr
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
