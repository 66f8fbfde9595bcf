package cluster

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sudoku-arena/arena/store"
)

// A node's writes for a room carry the epoch it holds for the room, a
// later round's as its first's; a write refused as fenced tells the node
// which room it lost, and no other refusal does.
func TestFencesHoldEpochsAndReportFencedRooms(t *testing.T) {
	t.Parallel()
	var lost []string
	f := NewFences(func(roomID string) { lost = append(lost, roomID) })
	assert.Zero(t, f.Epoch("r00m"), "no epoch held yet")
	f.Hold("r00m", 3)
	assert.Equal(t, int64(3), f.Epoch("r00m"))
	assert.Equal(t, int64(3), f.Epoch("r00m.2"), "a later round is fenced by its room's epoch")
	f.Hold("r00m", 4)
	assert.Equal(t, int64(4), f.Epoch("r00m.3"))

	tests := []struct {
		name string
		err  error
		lost []string
	}{
		{"no error", nil, nil},
		{"another refusal", fmt.Errorf("save: %w", store.ErrConflict), nil},
		{"fenced", fmt.Errorf("save: %w", store.ErrFenced), []string{"r00m"}},
		{"fenced events", &store.FencedError{Rooms: []string{"r00m"}}, []string{"r00m"}},
	}
	for _, tt := range tests {
		lost = nil
		err := f.Check("r00m.2", tt.err)
		assert.Equal(t, tt.err, err, "%s: passed on", tt.name)
		assert.Equal(t, tt.lost, lost, tt.name)
	}
}
