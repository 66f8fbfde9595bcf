package server

import (
	"container/list"
	"context"
	"sync"
	"time"
)

// replayCache keeps the replay answers of finished rounds, encoded, so
// that a replay asked for again is not read from the store again, and
// runs one read for the requests that ask for the same answer at once.
// A finished round does not change, but its events are deleted by the
// retention (and players leaving its room log a few more), so an answer
// is kept for ReplayCacheConfig.Age at most; the least recently used go
// first once the answers hold ReplayCacheConfig.Bytes.
type replayCache struct {
	max int64

	mu      sync.Mutex
	entries map[replayKey]*list.Element // each holds a *replayKept
	lru     list.List                   // the most recently used first
	bytes   int64
	flights map[replayKey]*replayFlight
}

// replayKey names one answer: a round's page.
type replayKey struct {
	game  string // room.GameID
	after int64
}

// replayEntry is one answer: its body as sent (or, for a round's head,
// the answer without events), the rounds it counts and when it is given
// up.
type replayEntry struct {
	body []byte
	head *ReplayResponse
	// prefix is a head's answer encoded up to its events (page makes it).
	prefix  []byte
	rounds  int
	expires time.Time
	// size is what a head holds, about; a body counts its length.
	size int64
}

// bytes is what the entry counts against the cache's bound.
func (e *replayEntry) bytes() int64 { return e.size + int64(len(e.body)) }

type replayKept struct {
	key   replayKey
	entry *replayEntry
}

// replayFlight is a read of an answer under way, which the requests for
// the same answer wait for.
type replayFlight struct {
	done    chan struct{}
	entry   *replayEntry
	refusal *replayRefusal
	err     error
}

func newReplayCache(cfg ReplayCacheConfig) *replayCache {
	return &replayCache{max: cfg.Bytes, entries: map[replayKey]*list.Element{}, flights: map[replayKey]*replayFlight{}}
}

// get answers the key: the kept answer while it lasts and usable says it
// will do, else the one being read for another request, else the one
// build reads (kept unless it is a refusal or an error). A request whose
// ctx ends while it waits for another's read gets ctx's error.
func (c *replayCache) get(ctx context.Context, key replayKey, now time.Time, usable func(*replayEntry) bool,
	build func() (*replayEntry, *replayRefusal, error)) (*replayEntry, *replayRefusal, error) {
	c.mu.Lock()
	if el, ok := c.entries[key]; ok {
		e := el.Value.(*replayKept).entry
		if now.Before(e.expires) && usable(e) {
			c.lru.MoveToFront(el)
			c.mu.Unlock()
			return e, nil, nil
		}
		c.remove(el)
	}
	if f, ok := c.flights[key]; ok {
		c.mu.Unlock()
		select {
		case <-f.done:
			return f.entry, f.refusal, f.err
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
	f := &replayFlight{done: make(chan struct{})}
	c.flights[key] = f
	c.mu.Unlock()

	defer func() {
		c.mu.Lock()
		delete(c.flights, key)
		if f.entry != nil {
			c.keep(key, f.entry, now)
		}
		c.mu.Unlock()
		close(f.done)
	}()
	f.entry, f.refusal, f.err = build()
	return f.entry, f.refusal, f.err
}

// peek is the kept answer for key while it lasts and usable says it will
// do; nil if there is none.
func (c *replayCache) peek(key replayKey, now time.Time, usable func(*replayEntry) bool) *replayEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil
	}
	e := el.Value.(*replayKept).entry
	if !now.Before(e.expires) || !usable(e) {
		return nil
	}
	c.lru.MoveToFront(el)
	return e
}

// put keeps the answer for key (see keep).
func (c *replayCache) put(key replayKey, e *replayEntry, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.keep(key, e, now)
}

// keep adds the answer, unless it is already given up or holds more than
// the whole cache, and makes room for it.
func (c *replayCache) keep(key replayKey, e *replayEntry, now time.Time) {
	size := e.bytes()
	if !now.Before(e.expires) || size > c.max {
		return
	}
	if el, ok := c.entries[key]; ok {
		c.remove(el)
	}
	c.entries[key] = c.lru.PushFront(&replayKept{key: key, entry: e})
	c.bytes += size
	for c.bytes > c.max {
		c.remove(c.lru.Back())
	}
}

func (c *replayCache) remove(el *list.Element) {
	k := el.Value.(*replayKept)
	c.lru.Remove(el)
	delete(c.entries, k.key)
	c.bytes -= k.entry.bytes()
}

// size is how many answers are kept and how many bytes they hold.
func (c *replayCache) size() (int, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries), c.bytes
}
