package server

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestAddrKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ remote, want string }{
		{"192.0.2.1:5000", "192.0.2.1"},
		{"192.0.2.1", "192.0.2.1"},
		{"[::ffff:192.0.2.1]:80", "192.0.2.1"},
		{"[2001:db8:aa:bb:1:2:3:4]:443", "2001:db8:aa:bb::/64"},
		{"[2001:db8:aa:bb::]:443", "2001:db8:aa:bb::/64"},
		{"[fe80::1%eth0]:22", "fe80::/64"},
		{"[::1]:8080", "::/64"},
		{"@", "@"}, // a unix socket's peer
	} {
		assert.Equal(t, tc.want, addrKey(tc.remote), tc.remote)
	}
}

func TestAddrLimiterRefills(t *testing.T) {
	t.Parallel()
	l := newAddrLimiter(60, 2) // one a second, two at once
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	assert.True(t, l.allow("a", now))
	assert.True(t, l.allow("a", now))
	assert.False(t, l.allow("a", now))
	assert.True(t, l.allow("b", now), "each address has its own bucket")
	assert.False(t, l.allow("a", now.Add(500*time.Millisecond)))
	assert.True(t, l.allow("a", now.Add(1500*time.Millisecond)))
	assert.Nil(t, newAddrLimiter(0, 0), "0 is no limit")
	assert.True(t, (*addrLimiter)(nil).allow("a", now))
}

func TestAddrCounter(t *testing.T) {
	t.Parallel()
	c := newAddrCounter(2)
	assert.True(t, c.acquire("a"))
	assert.True(t, c.acquire("a"))
	assert.False(t, c.acquire("a"))
	assert.True(t, c.acquire("b"))
	c.release("a")
	assert.True(t, c.acquire("a"))
	c.release("a")
	c.release("a")
	c.release("b")
	assert.Empty(t, c.held, "addresses holding nothing are forgotten")
	assert.Nil(t, newAddrCounter(0), "0 is no limit")
	var none *addrCounter
	assert.True(t, none.acquire("a"))
	none.release("a")
}
