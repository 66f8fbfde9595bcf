package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"sync"

	"github.com/sudoku-arena/arena/room"
)

// identities keeps, in memory, who holds each token among the players who
// joined a room of this server that is still live: a player who drops
// resumes with their token without a database read, so a database outage
// does not lock anyone out of the game they are in (a new player, whom the
// database must store, is refused meanwhile). Only the token's hash is
// kept, as in the database. A token's player never changes, so an entry
// cannot go stale; entries whose room has ended are pruned as the map
// grows, which bounds it by the players of live rooms.
type identities struct {
	mu      sync.Mutex
	byHash  map[string]identity
	pruneAt int
}

// identity is a player, and the room they last joined here.
type identity struct {
	id, name, room string
	guest          bool
}

// minPrune is the size below which the map is not pruned.
const minPrune = 1024

func (ids *identities) lookup(tokenHash []byte) (identity, bool) {
	ids.mu.Lock()
	defer ids.mu.Unlock()
	who, ok := ids.byHash[string(tokenHash)]
	return who, ok
}

// remember notes that the player holding the token joined the room, and
// prunes the players of ended rooms once the map has doubled since the last
// time.
func (ids *identities) remember(tokenHash []byte, who identity, rooms *room.Registry) {
	ids.mu.Lock()
	defer ids.mu.Unlock()
	if ids.byHash == nil {
		ids.byHash = map[string]identity{}
	}
	ids.byHash[string(tokenHash)] = who
	if len(ids.byHash) < max(ids.pruneAt, minPrune) {
		return
	}
	for h, w := range ids.byHash {
		if _, err := rooms.Get(w.room); err != nil {
			delete(ids.byHash, h)
		}
	}
	ids.pruneAt = 2 * len(ids.byHash)
}

// playerByToken is the player holding the token: from memory when they
// joined a live room here, else from the database.
func (s *Server) playerByToken(ctx context.Context, tokenHash []byte) (id, name string, guest bool, err error) {
	if who, ok := s.known.lookup(tokenHash); ok {
		return who.id, who.name, who.guest, nil
	}
	return s.players.PlayerByToken(ctx, tokenHash)
}

// newToken is a player's secret: 32 random bytes, base64url.
func newToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// HashToken is what is stored of a token.
func HashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// newMemberID is a player's ("p_…") or spectator's ("s_…") id.
func newMemberID(prefix string) string {
	var b [9]byte
	_, _ = rand.Read(b[:])
	return prefix + strings.ToLower(base64.RawURLEncoding.EncodeToString(b[:]))
}
