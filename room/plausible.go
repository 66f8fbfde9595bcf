package room

import (
	"math"
	"slices"
	"time"

	"github.com/sudoku-arena/arena/engine"
)

// A ranked finish must look like a person's, or it is held for review:
// stored, off every leaderboard, shown to its player as "under review",
// until an operator confirms or removes it (arena review). What a
// person cannot do:
//
//   - finish faster than the level's floor (LevelFloor), or than the
//     puzzle's own floor: its logical steps, each at a person's fastest
//     pace for its technique (PuzzleFloor);
//   - place digits at machine-regular intervals (minRegularCV);
//   - fill the cells in scan order, one after the next (maxScanShare);
//   - go on at their usual pace into the cells the puzzle's hardest steps
//     open (minHardPause).
//
// The checks look at the player's placements in the round (the digits
// they set, with when): they run where the finish is made, on what the
// room saw.

// ReviewHeld is a held finish's review state, as snapshots show it.
const ReviewHeld = "held"

// Hold reasons, as results and the API carry them.
const (
	HoldLevelFloor = "faster than the level's floor"
	HoldStepFloor  = "faster than the puzzle's logical steps allow"
	HoldRegular    = "digits placed at machine-regular intervals"
	HoldScanOrder  = "cells filled in scan order"
	HoldNoPause    = "no pause before the hardest steps"
)

// LevelFloor is the fastest a puzzle of the level can honestly be
// solved in a ranked mode: easy 60 s, medium 90 s, hard 120 s, expert
// 150 s, master 180 s.
func LevelFloor(level string) time.Duration {
	rank, ok := levelRank(level)
	if !ok {
		return 0
	}
	return 60*time.Second + time.Duration(rank)*30*time.Second
}

// scaleFloor is the floor d at percent percent of itself.
func scaleFloor(d time.Duration, percent int) time.Duration {
	return d * time.Duration(percent) / 100
}

// levelRank is the level's place among the levels, 0 for easy: a room's
// level (Levels), or the grade of a player's own puzzle ("beyond" ranks
// with master, the first above expert).
func levelRank(level string) (int, bool) {
	if _, rank, err := engine.ParseDifficulty(level); err == nil {
		return rank, true
	}
	if l, err := engine.ParseLevel(level); err == nil {
		return int(l), true
	}
	return 0, false
}

// stepPace is a person's fastest time for one logical step, by the
// level of its technique: a single is seen and written in a second, a
// medium technique (pairs, pointing) takes 4, a hard one (wings, fish)
// 8, an expert one (chains, colouring) 12.
var stepPace = [...]time.Duration{engine.LevelEasy: time.Second, engine.LevelMedium: 4 * time.Second,
	engine.LevelHard: 8 * time.Second, engine.LevelExpert: 12 * time.Second}

// PuzzleFloor is a puzzle's own floor from its grade: the steps the
// logical solver took (technique name to count, as the grader reports
// them), each at stepPace. Unknown names count as singles.
func PuzzleFloor(techniques map[string]int) time.Duration {
	var d time.Duration
	for name, n := range techniques {
		pace := time.Second
		if t, err := engine.ParseTechnique(name); err == nil && int(t.Level()) < len(stepPace) {
			pace = stepPace[t.Level()]
		}
		d += time.Duration(n) * pace
	}
	return d
}

// The pattern checks need this many placements to say anything.
const minPlacements = 20

// minRegularCV: intervals between placements whose coefficient of
// variation (standard deviation over mean) is below it are a machine's.
// A person's vary with each cell's difficulty: measured on people's
// games it is well above 0.5.
const minRegularCV = 0.15

// maxScanShare: when more than this share of consecutive placements go
// to the next empty cell in reading order, the board was filled by
// a scan, not by logic.
const maxScanShare = 0.85

// placement is a digit a player set, and when.
type placement struct {
	cell uint8
	at   time.Time
}

// maxPlacements bounds what a member keeps of their placements.
const maxPlacements = 4 * engine.NumCells

// minHardPause: a person thinks before the cells a run of harder steps
// opens (Puzzle.Unlocked), so the gaps before the first of each run's
// cells they place average at least this many times their median gap.
// It is judged on a puzzle with two such runs or more, and on a finish
// without hints (a hint does the thinking).
const minHardPause = 1.5

// holdReason says why a ranked finish of elapsed on pz, with these
// placements and hints, is held for review ("" for none), with the floors
// at floorPercent percent (Config.FloorPercent).
func holdReason(pz Puzzle, floorPercent int, elapsed time.Duration, placed []placement, hints int) string {
	switch {
	case elapsed < scaleFloor(LevelFloor(pz.Level), floorPercent):
		return HoldLevelFloor
	case elapsed < scaleFloor(pz.Floor, floorPercent):
		return HoldStepFloor
	}
	if len(placed) < minPlacements {
		return ""
	}
	if cv := intervalCV(placed); cv < minRegularCV {
		return HoldRegular
	}
	if scanShare(placed) > maxScanShare {
		return HoldScanOrder
	}
	if hints == 0 && len(pz.Unlocked) >= 2 && hardPause(placed, pz.Unlocked) < minHardPause {
		return HoldNoPause
	}
	return ""
}

// hardPause is the mean gap before the first placement of each group of
// unlocked cells, over the median gap between placements (+Inf, which
// holds nothing, when no group's cell was placed after another).
func hardPause(placed []placement, unlocked [][]int) float64 {
	gaps := make([]time.Duration, 0, len(placed)-1)
	for i := 1; i < len(placed); i++ {
		gaps = append(gaps, placed[i].at.Sub(placed[i-1].at))
	}
	var sum time.Duration
	n := 0
	for _, cells := range unlocked {
		for i, p := range placed {
			if slices.Contains(cells, int(p.cell)) {
				if i > 0 {
					sum += gaps[i-1]
					n++
				}
				break
			}
		}
	}
	slices.Sort(gaps)
	median := gaps[len(gaps)/2]
	if n == 0 || median <= 0 {
		return math.Inf(1)
	}
	return float64(sum) / float64(n) / float64(median)
}

// intervalCV is the coefficient of variation of the intervals between
// placements.
func intervalCV(placed []placement) float64 {
	n := float64(len(placed) - 1)
	var sum, sq float64
	for i := 1; i < len(placed); i++ {
		d := placed[i].at.Sub(placed[i-1].at).Seconds()
		sum += d
		sq += d * d
	}
	mean := sum / n
	if mean <= 0 {
		return 0
	}
	return math.Sqrt(max(0, sq/n-mean*mean)) / mean
}

// scanShare is the share of consecutive placements that go to a later
// cell in reading order than the one before, among distinct cells.
func scanShare(placed []placement) float64 {
	var seen [engine.NumCells]bool
	cells := make([]uint8, 0, len(placed))
	for _, p := range placed {
		if !seen[p.cell] {
			seen[p.cell] = true
			cells = append(cells, p.cell)
		}
	}
	if len(cells) < 2 {
		return 0
	}
	next := 0
	for i := 1; i < len(cells); i++ {
		if cells[i] > cells[i-1] {
			next++
		}
	}
	return float64(next) / float64(len(cells)-1)
}
