package engine

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUnavoidablePairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for range 50 {
		sol := RandomSolution(rng)
		sets := unavoidablePairs(nil, &sol)
		require.LessOrEqual(t, len(sets), maxPairSets)
		var covered [NumCells]int
		for _, s := range sets {
			require.GreaterOrEqual(t, s.Len(), 4)
			var digits uint16
			for c := range s.All() {
				digits |= 1 << sol[c]
				covered[c]++
			}
			require.Equal(t, 2, bits.OnesCount16(digits), "two digits: %v", s)
			// Swapping the two digits in the set leaves a valid grid: the
			// set is unavoidable.
			swapped := sol
			for c := range s.All() {
				swapped[c] = uint8(bits.TrailingZeros16(digits &^ (1 << sol[c])))
			}
			assert.False(t, swapped.HasConflict(), "swap %v", s)
			assert.NotEqual(t, sol, swapped)
		}
		for c, n := range covered {
			assert.Equal(t, 8, n, "cell %d is in one set per other digit", c)
		}
	}
}

// TestDiggerCanRemove checks the generator's quick uniqueness answers
// against counting the solutions, along random digs.
func TestDiggerCanRemove(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	for _, symmetric := range []bool{false, true} {
		for range 40 {
			sol := RandomSolution(rng)
			var d digger
			d.init(&sol, symmetric)
			var buf [NumCells]uint8
			for _, c := range removalOrder(buf[:0], rng, symmetric) {
				q := d.p
				clear2(&q, int(c), symmetric)
				want := CountSolutions(q, 2) == 1
				require.Equal(t, want, d.canRemove(int(c)), "%s without %d", d.p, c)
				if want {
					d.remove(int(c))
					require.Equal(t, q, d.p)
				}
			}
			var again digger
			again.init(&sol, symmetric)
			again.set(&d.p)
			assert.Equal(t, d.clues, again.clues)
			assert.Equal(t, d.used, again.used)
		}
	}
}
