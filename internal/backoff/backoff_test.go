package backoff

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestNextDoublesWithJitterUpToTheCap(t *testing.T) {
	b := Backoff{Min: 10 * time.Millisecond, Max: 300 * time.Millisecond}
	want := []time.Duration{10, 20, 40, 80, 160, 300, 300}
	for i, w := range want {
		w *= time.Millisecond
		got := b.Next()
		assert.GreaterOrEqual(t, got, w/2, "failure %d", i+1)
		assert.LessOrEqual(t, got, w, "failure %d", i+1)
	}
	assert.Equal(t, len(want), b.Fails())
}

func TestNextIsSpread(t *testing.T) {
	seen := map[time.Duration]bool{}
	for range 50 {
		b := Backoff{Min: time.Second, Max: time.Minute}
		seen[b.Next()] = true
	}
	assert.Greater(t, len(seen), 10, "writers that failed together retry apart")
}
