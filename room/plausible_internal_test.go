package room

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// placements makes n placements on cells in the order given, the i-th
// after gap(i) from the one before.
func placements(cells []int, gap func(i int) time.Duration) []placement {
	at := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	out := make([]placement, len(cells))
	for i, c := range cells {
		at = at.Add(gap(i))
		out[i] = placement{cell: uint8(c), at: at}
	}
	return out
}

func TestHoldReason(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	scan := make([]int, 50)
	for i := range scan {
		scan[i] = i + i/3 // increasing, with gaps (the givens)
	}
	shuffled := rng.Perm(81)[:50]
	human := func(i int) time.Duration { // 1–9 s, a person's spread
		return time.Second + time.Duration(rng.Int64N(int64(8*time.Second)))
	}
	machine := func(i int) time.Duration { return 2*time.Second + time.Duration(i%2)*10*time.Millisecond }

	tests := []struct {
		name    string
		elapsed time.Duration
		floor   time.Duration
		placed  []placement
		want    string
	}{
		{"a person", 4 * time.Minute, 0, placements(shuffled, human), ""},
		{"under the level's floor", 59 * time.Second, 0, placements(shuffled, human), HoldLevelFloor},
		{"under the puzzle's floor", 2 * time.Minute, 3 * time.Minute, placements(shuffled, human), HoldStepFloor},
		{"machine-regular", 4 * time.Minute, 0, placements(shuffled, machine), HoldRegular},
		{"all at once", 4 * time.Minute, 0, placements(shuffled, func(int) time.Duration { return 0 }), HoldRegular},
		{"scan order", 4 * time.Minute, 0, placements(scan, human), HoldScanOrder},
		{"too few placements to judge", 4 * time.Minute, 0, placements(scan[:minPlacements-1], machine), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, holdReason(Puzzle{Level: "easy", Floor: tt.floor}, 100, tt.elapsed, tt.placed, 0))
		})
	}
}

// A person pauses before the cells the hardest steps open; a bot that
// keeps its uneven pace into them is held, unless it took hints.
func TestHoldReasonPauses(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cells := rng.Perm(81)[:50]
	unlocked := [][]int{{cells[20], cells[21]}, {cells[35]}, {cells[44], cells[45]}}
	pz := Puzzle{Level: "hard", Unlocked: unlocked}
	steady := func(int) time.Duration { return 2*time.Second + time.Duration(rng.Int64N(int64(3*time.Second))) }
	thinks := func(i int) time.Duration {
		if i == 20 || i == 35 || i == 44 {
			return 40 * time.Second
		}
		return steady(i)
	}
	assert.Equal(t, HoldNoPause, holdReason(pz, 100, 5*time.Minute, placements(cells, steady), 0))
	assert.Equal(t, "", holdReason(pz, 100, 5*time.Minute, placements(cells, thinks), 0), "a person's pauses")
	assert.Equal(t, "", holdReason(pz, 100, 5*time.Minute, placements(cells, steady), 1), "a hint did the thinking")
	pz.Unlocked = unlocked[:1]
	assert.Equal(t, "", holdReason(pz, 100, 5*time.Minute, placements(cells, steady), 0), "one run is too few to judge")
}

// The floors scale with Config.FloorPercent, the level's and the
// puzzle's own together: at 100 they are as defined.
func TestHoldReasonFloorPercent(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	placed := placements(rng.Perm(81)[:50], func(int) time.Duration { return time.Second + time.Duration(rng.Int64N(int64(8*time.Second))) })
	pz := Puzzle{Level: "easy", Floor: 80 * time.Second}
	tests := []struct {
		percent int
		elapsed time.Duration
		want    string
	}{
		{100, 59 * time.Second, HoldLevelFloor},
		{100, 79 * time.Second, HoldStepFloor},
		{100, 80 * time.Second, ""},
		{10, 5900 * time.Millisecond, HoldLevelFloor},
		{10, 6 * time.Second, HoldStepFloor},
		{10, 8 * time.Second, ""},
		{250, 149 * time.Second, HoldLevelFloor},
		{250, 199 * time.Second, HoldStepFloor},
		{250, 200 * time.Second, ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, holdReason(pz, tt.percent, tt.elapsed, placed, 0), "%d%%, %s", tt.percent, tt.elapsed)
	}
	assert.Equal(t, 100, Config{}.withDefaults().FloorPercent, "unset, the floors are as defined")
}

func TestFloors(t *testing.T) {
	assert.Equal(t, 60*time.Second, LevelFloor("easy"))
	assert.Equal(t, 150*time.Second, LevelFloor("expert"))
	assert.Zero(t, LevelFloor("nope"))
	// 40 singles at 1 s, 2 pairs at 4 s, one X-Wing at 8 s.
	assert.Equal(t, 56*time.Second, PuzzleFloor(map[string]int{"naked-single": 30, "hidden-single": 10, "naked-pair": 2, "x-wing": 1}))
	assert.Equal(t, 3*time.Second, PuzzleFloor(map[string]int{"no-such-technique": 3}), "unknown steps count as singles")
}
