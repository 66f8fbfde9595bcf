package cluster

import (
	"errors"
	"sync"

	"github.com/sudoku-arena/arena/store"
)

// Fences is the epoch this node holds for each room it owns: what its
// writes for the room carry. It is the store.Fences of the node's
// store.Adapter.
type Fences struct {
	mu     sync.Mutex
	epochs map[string]int64
	// fenced is told a room whose write was refused as fenced.
	fenced func(roomID string)
}

var _ store.Fences = (*Fences)(nil)

// NewFences is a node's fences, holding no room yet; fenced, when set,
// is told a room whose write was refused as fenced.
func NewFences(fenced func(roomID string)) *Fences {
	return &Fences{epochs: map[string]int64{}, fenced: fenced}
}

// Epoch is the epoch held for the game's room.
func (f *Fences) Epoch(gameID string) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.epochs[store.RoomOf(gameID)]
}

// Hold records the epoch now held for the room.
func (f *Fences) Hold(roomID string, epoch int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.epochs[roomID] = epoch
}

// Check passes err on, and tells fenced when it is a fencing refusal of a
// write for the game's room.
func (f *Fences) Check(gameID string, err error) error {
	if f.fenced != nil && errors.Is(err, store.ErrFenced) {
		f.fenced(store.RoomOf(gameID))
	}
	return err
}
