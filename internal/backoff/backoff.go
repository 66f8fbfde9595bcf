// Package backoff is the waits between retries of a write the database did
// not take: doubling from a minimum to a cap, each drawn at random from its
// upper half, so that many writers that failed together (every room when
// the database went away) do not all come back in the same instant.
package backoff

import (
	"math/rand/v2"
	"time"
)

// Backoff counts the failures of one write and says how long to wait
// before the next try. The zero value is not usable: set Min and Max.
type Backoff struct {
	Min, Max time.Duration
	fails    int
}

// Next is the wait after one more failure: a random duration in [d/2, d]
// where d doubles from Min with each failure up to Max.
func (b *Backoff) Next() time.Duration {
	d := b.Min
	for i := 0; i < b.fails && d < b.Max; i++ {
		d *= 2
	}
	d = min(d, b.Max)
	b.fails++
	half := d / 2
	if half <= 0 {
		return d
	}
	return half + rand.N(d-half+1)
}

// Fails is how many failures Next has counted.
func (b *Backoff) Fails() int { return b.fails }
