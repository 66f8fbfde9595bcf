// Package queue is the "Play now" matchmaking queue: players wait in a
// pool per level (rated or casual) and are put together in groups of
// MinPlayers to MaxPlayers of similar rating, the window of ratings a
// player accepts widening the longer they wait. Two entries of one
// account, or from one network address, never share a group.
//
// The queue holds no goroutine and reads no clock: the caller passes the
// time to Match, so a server ticks it and a tournament can use it to pair
// its own players. It knows nothing of rooms or sockets; what to do with a
// Group is the caller's.
package queue

import (
	"errors"
	"slices"
	"sort"
	"sync"
	"time"
)

// Error kinds returned by Join.
var (
	// ErrQueued: the ticket, or the account, waits in the queue already.
	ErrQueued = errors.New("queue: already waiting")
	// ErrInvalid: the entry lacks a ticket, a player or a level.
	ErrInvalid = errors.New("queue: invalid entry")
)

// Config tunes the matching. The zero value of a field takes the default.
type Config struct {
	// MinPlayers and MaxPlayers bound a group (2 and 4).
	MinPlayers, MaxPlayers int
	// Window is the rating difference a player accepts on joining (100),
	// widening evenly to MaxWindow (400) over Widen (30 s) of waiting.
	Window, MaxWindow float64
	Widen             time.Duration
}

func (c Config) withDefaults() Config {
	if c.MinPlayers < 2 {
		c.MinPlayers = 2
	}
	if c.MaxPlayers < c.MinPlayers {
		c.MaxPlayers = max(4, c.MinPlayers)
	}
	if c.Window <= 0 {
		c.Window = 100
	}
	if c.MaxWindow < c.Window {
		c.MaxWindow = max(400, c.Window)
	}
	if c.Widen <= 0 {
		c.Widen = 30 * time.Second
	}
	return c
}

// Pool names one queue: a level, rated or casual.
type Pool struct {
	Level string
	Rated bool
}

// Entry is one player waiting. Ticket identifies the wait (what the player
// holds to ask about it or leave); Player is who waits; Account is their
// account's key ("" for a guest: two guests are told apart by Player and
// Addr only); Addr is the network address they came from.
type Entry struct {
	Ticket   string
	Player   string
	Account  string
	Addr     string
	Pool     Pool
	Rating   float64
	JoinedAt time.Time
}

// Group is a set of entries to start a race together, oldest first.
type Group struct {
	Pool    Pool
	Entries []Entry
}

// Queue is the matchmaking queue; it is safe for concurrent use.
type Queue struct {
	cfg     Config
	mu      sync.Mutex
	entries map[string]Entry // by ticket
}

// New makes an empty queue.
func New(cfg Config) *Queue {
	return &Queue{cfg: cfg.withDefaults(), entries: map[string]Entry{}}
}

// Config is the queue's configuration, its defaults filled in.
func (q *Queue) Config() Config { return q.cfg }

// Join puts an entry in the queue. A ticket, a player or an account that
// waits already is ErrQueued, and the queue is unchanged.
func (q *Queue) Join(e Entry) error {
	if e.Ticket == "" || e.Player == "" || e.Pool.Level == "" {
		return ErrInvalid
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, w := range q.entries {
		if w.Ticket == e.Ticket || w.Player == e.Player || (e.Account != "" && w.Account == e.Account) {
			return ErrQueued
		}
	}
	q.entries[e.Ticket] = e
	return nil
}

// Leave takes the ticket out of the queue at once; it reports whether it
// was waiting.
func (q *Queue) Leave(ticket string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	_, ok := q.entries[ticket]
	delete(q.entries, ticket)
	return ok
}

// Waiting reports whether the ticket waits, and its entry.
func (q *Queue) Waiting(ticket string) (Entry, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	e, ok := q.entries[ticket]
	return e, ok
}

// Counts is how many wait in each pool.
func (q *Queue) Counts() map[Pool]int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := map[Pool]int{}
	for _, e := range q.entries {
		n[e.Pool]++
	}
	return n
}

// Len is how many wait in all.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.entries)
}

// WindowAt is the rating difference an entry that joined at joined
// accepts at now.
func (q *Queue) WindowAt(joined, now time.Time) float64 {
	waited := now.Sub(joined)
	if waited >= q.cfg.Widen {
		return q.cfg.MaxWindow
	}
	if waited <= 0 {
		return q.cfg.Window
	}
	return q.cfg.Window + (q.cfg.MaxWindow-q.cfg.Window)*float64(waited)/float64(q.cfg.Widen)
}

// Fits reports whether two entries may share a group at now: not one
// account, player or address, and their ratings apart by no more than the
// wider of their windows (the one who waited longer decides, so nobody
// waits much past Widen while anyone else of the pool can play them).
func (q *Queue) Fits(a, b Entry, now time.Time) bool {
	if a.Player == b.Player || (a.Account != "" && a.Account == b.Account) || (a.Addr != "" && a.Addr == b.Addr) {
		return false
	}
	d := a.Rating - b.Rating
	if d < 0 {
		d = -d
	}
	return d <= max(q.WindowAt(a.JoinedAt, now), q.WindowAt(b.JoinedAt, now))
}

// Match takes out of the queue every group it can make at now and returns
// them. Within a pool the longest waiting entry is served first: it is
// grouped with the entries nearest its rating that fit it and one
// another, up to MaxPlayers. An entry left with fewer than MinPlayers is
// then grouped with members a larger group can spare (rescue), or waits
// on.
func (q *Queue) Match(now time.Time) []Group {
	q.mu.Lock()
	defer q.mu.Unlock()
	pools := map[Pool][]Entry{}
	for _, e := range q.entries {
		pools[e.Pool] = append(pools[e.Pool], e)
	}
	var groups []Group
	for pool, es := range pools {
		sort.Slice(es, func(i, j int) bool {
			if !es[i].JoinedAt.Equal(es[j].JoinedAt) {
				return es[i].JoinedAt.Before(es[j].JoinedAt)
			}
			return es[i].Ticket < es[j].Ticket
		})
		taken := make([]bool, len(es))
		var made [][]int
		for i := range es {
			if taken[i] {
				continue
			}
			members := q.gather(es, taken, i, now)
			if len(members) < q.cfg.MinPlayers {
				continue
			}
			for _, m := range members {
				taken[m] = true
			}
			made = append(made, members)
		}
		made = q.rescue(es, taken, made, now)
		for _, members := range made {
			g := Group{Pool: pool}
			sort.Ints(members)
			for _, m := range members {
				g.Entries = append(g.Entries, es[m])
				delete(q.entries, es[m].Ticket)
			}
			groups = append(groups, g)
		}
	}
	sort.Slice(groups, func(i, j int) bool {
		return groups[i].Entries[0].JoinedAt.Before(groups[j].Entries[0].JoinedAt)
	})
	return groups
}

// rescue makes groups for entries left alone, oldest first, out of other
// lone entries and members that groups made before can spare (a group
// keeps MinPlayers): greedy grouping can leave an entry with nobody it
// may meet, e.g. players from addresses z, x, y, z grouped as {z, x, y}
// and a lone z, where {z, x} and {y, z} let everyone play. A member is
// taken only when it fits the lone entry and the others taken for it.
func (q *Queue) rescue(es []Entry, taken []bool, made [][]int, now time.Time) [][]int {
	in := make([]int, len(es)) // the index in made of the group holding es[j], or -1
	for j := range in {
		in[j] = -1
	}
	for g, members := range made {
		for _, m := range members {
			in[m] = g
		}
	}
	for i := range es {
		if taken[i] {
			continue
		}
		spare := make([]int, len(made))
		for g, members := range made {
			spare[g] = len(members) - q.cfg.MinPlayers
		}
		group := []int{i}
		for j := range es {
			if len(group) == q.cfg.MinPlayers {
				break
			}
			if j == i || (taken[j] && (in[j] < 0 || spare[in[j]] == 0)) {
				continue
			}
			ok := true
			for _, m := range group {
				ok = ok && q.Fits(es[m], es[j], now)
			}
			if ok {
				group = append(group, j)
				if in[j] >= 0 {
					spare[in[j]]--
				}
			}
		}
		if len(group) < q.cfg.MinPlayers {
			continue
		}
		for _, j := range group {
			if g := in[j]; g >= 0 {
				made[g] = slices.DeleteFunc(made[g], func(m int) bool { return m == j })
			}
			taken[j], in[j] = true, len(made)
		}
		made = append(made, group)
	}
	return made
}

// gather is the indexes of the group es[i] would lead: es[i] and the
// untaken entries nearest its rating that fit every member so far.
func (q *Queue) gather(es []Entry, taken []bool, i int, now time.Time) []int {
	cands := make([]int, 0, len(es))
	for j := range es {
		if j != i && !taken[j] && q.Fits(es[i], es[j], now) {
			cands = append(cands, j)
		}
	}
	dist := func(j int) float64 {
		d := es[j].Rating - es[i].Rating
		if d < 0 {
			return -d
		}
		return d
	}
	sort.SliceStable(cands, func(a, b int) bool { return dist(cands[a]) < dist(cands[b]) })
	members := []int{i}
	for _, j := range cands {
		if len(members) == q.cfg.MaxPlayers {
			break
		}
		ok := true
		for _, m := range members[1:] {
			if !q.Fits(es[m], es[j], now) {
				ok = false
				break
			}
		}
		if ok {
			members = append(members, j)
		}
	}
	return members
}
