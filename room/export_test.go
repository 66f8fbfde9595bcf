package room

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
)

// RecordOf is a logged event as a room hands it to the store (encode):
// the event's JSON as clients' frames are written, dated as the game took
// it.
func RecordOf(l Logged) Record { return record(l, protocol.AppendEvent(nil, l.Event)) }

// SeqGapAfterCrash is how far a restore numbers on past the saved state.
const SeqGapAfterCrash = seqGapAfterCrash

// ReplayCheck holds a live game to a restore of it, after every step of
// play: a game rebuilt from a state the live one saved and the records it
// logged since, encoded as a room encodes them for the store, must equal
// the live game in every field a restore brings back (Restorable). It
// rebuilds from two states:
//
//   - the state the game last asked to have saved: what a crash before
//     the room saves again brings back;
//   - the round's first state, so that the records replay the whole round.
//     A round starts afresh (Rematch), and the only changes no event tells
//     of ask for a save without a state event (see evolve): a replay
//     starts after those.
//
// After every step each state is held, with the records replayed onto it
// as they come, to the live game (as Rebuild would finish it); at each
// save and at the end each goes through Rebuild itself, the records all
// replayed at once. A test that plays a game calls Step after each thing
// the game did, with the effects it drained, and Done once it is over.
type ReplayCheck struct {
	tb    testing.TB
	cfg   Config
	last  replayFrom
	first replayFrom
	round int   // the round first is of
	seen  int64 // the seq of the newest record taken
	bad   bool  // a check failed: the next would only say so again
}

// replayFrom is a state saved, as the store keeps it, the records logged
// after it, and the game loaded from it with those records replayed.
type replayFrom struct {
	base    []byte
	recs    []Record
	replica *Game
}

// CheckReplay starts checking g, whose state now is the state a restore
// would start from (a new game saves at once, once it is set up; a
// restored one too).
func CheckReplay(tb testing.TB, g *Game, now time.Time) *ReplayCheck {
	c := &ReplayCheck{tb: tb, cfg: g.cfg, seen: g.seq, round: g.round}
	c.rebase(&c.last, g, now)
	c.rebase(&c.first, g, now)
	return c
}

// rebase makes g's state now the state f rebuilds from.
func (c *ReplayCheck) rebase(f *replayFrom, g *Game, now time.Time) {
	data, err := json.Marshal(g.Save(now))
	if err != nil {
		c.tb.Fatalf("replay check: save %s: %v", g.id, err)
	}
	var s Saved
	if err := json.Unmarshal(data, &s); err != nil {
		c.tb.Fatalf("replay check: %v", err)
	}
	r, err := load(c.cfg, &s)
	if err != nil {
		c.tb.Fatalf("replay check: load %s: %v", g.id, err)
	}
	*f = replayFrom{base: data, replica: r}
}

// Take takes the records g has logged since the last Step, as a room
// would hand them to the store, and reports whether one is a state
// event; a caller that drains them (DrainRecords) calls it first.
func (c *ReplayCheck) Take(g *Game) (state bool) {
	for _, l := range g.records {
		seq := l.Event.Head().Seq
		if seq <= c.seen {
			continue
		}
		if seq != c.seen+1 && !c.bad {
			c.bad = true
			c.tb.Errorf("replay check: records %d to %d were drained unseen", c.seen+1, seq-1)
		}
		rec := RecordOf(l)
		for _, f := range []*replayFrom{&c.last, &c.first} {
			f.recs = append(f.recs, rec)
			if _, err := f.replica.replay([]Record{rec}); err != nil && !c.bad {
				c.bad = true
				c.tb.Errorf("replay check: %v", err)
			}
		}
		c.seen = seq
		state = state || rec.Type == protocol.TypeState
	}
	return state
}

// Step checks g after a step of play that queued the effects eff.
func (c *ReplayCheck) Step(g *Game, eff []Effect, now time.Time) {
	c.tb.Helper()
	state := c.Take(g)
	save := slices.ContainsFunc(eff, func(e Effect) bool { return e.Save })
	if save && (!state || g.round != c.round) {
		c.rebase(&c.last, g, now)
		c.rebase(&c.first, g, now)
		c.round = g.round
	}
	live := Restorable(g, 0)
	c.check(g, live, &c.last, save, now)
	if !c.same() {
		c.check(g, live, &c.first, save, now)
	}
	if save {
		c.rebase(&c.last, g, now)
	}
}

// Done checks g once play is over, through Rebuild.
func (c *ReplayCheck) Done(g *Game, now time.Time) {
	c.tb.Helper()
	c.Take(g)
	live := Restorable(g, 0)
	c.check(g, live, &c.last, true, now)
	if !c.same() {
		c.check(g, live, &c.first, true, now)
	}
}

// same reports whether first is last: the same state, and the same
// records after it.
func (c *ReplayCheck) same() bool {
	return len(c.first.recs) == len(c.last.recs) && bytes.Equal(c.first.base, c.last.base)
}

// check compares the live game with f's replica, finished as Rebuild
// finishes a game (it asks again for the finishes waiting, pending), and,
// when rebuild is set, with a game Rebuild makes of f.
func (c *ReplayCheck) check(g *Game, live map[string]any, f *replayFrom, rebuild bool, now time.Time) {
	c.tb.Helper()
	if c.bad {
		return
	}
	got := Restorable(f.replica, 0)
	got["pending"] = 0
	for _, m := range f.replica.members {
		if m.role == protocol.RolePlayer && m.saving {
			got["pending"] = got["pending"].(int) + 1
		}
	}
	c.compare(g, live, got, f, "replayed onto")
	if !rebuild || c.bad {
		return
	}
	var s Saved
	if err := json.Unmarshal(f.base, &s); err != nil {
		c.tb.Fatalf("replay check: %v", err)
	}
	r, err := Rebuild(c.cfg, &s, f.recs, now)
	if err != nil {
		c.bad = true
		c.tb.Errorf("replay check: rebuild %s at seq %d: %v", g.id, g.seq, err)
		return
	}
	c.compare(g, live, Restorable(r, seqGapAfterCrash), f, "rebuilt from")
}

func (c *ReplayCheck) compare(g *Game, live, got map[string]any, f *replayFrom, how string) {
	c.tb.Helper()
	if diff := Diff(live, got); diff != "" {
		c.bad = true
		c.tb.Errorf("replay check: %s %s its state at seq %d with the %d records after it differs from the live game at seq %d (live, then restored):\n%s",
			g.id, how, g.seq-int64(len(f.recs)), len(f.recs), g.seq, diff)
	}
}

// Diff lists the fields that differ between two Restorable states, one
// line each; "" when none does.
func Diff(live, restored map[string]any) string {
	var keys []string
	for k := range live {
		keys = append(keys, k)
	}
	for k := range restored {
		if _, ok := live[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		l, lok := live[k]
		r, rok := restored[k]
		if lok == rok && equal(l, r) {
			continue
		}
		fmt.Fprintf(&b, "\t%s: %s, %s\n", k, show(l, lok), show(r, rok))
	}
	return b.String()
}

// equal is reflect.DeepEqual, quicker on the values most fields hold.
func equal(a, b any) bool {
	switch a := a.(type) {
	case string:
		b, ok := b.(string)
		return ok && a == b
	case int:
		b, ok := b.(int)
		return ok && a == b
	case bool:
		b, ok := b.(bool)
		return ok && a == b
	case time.Time:
		b, ok := b.(time.Time)
		return ok && a == b
	}
	return reflect.DeepEqual(a, b)
}

func show(v any, ok bool) string {
	if !ok {
		return "(none)"
	}
	return fmt.Sprintf("%+v", v)
}

// Excluded are the Game's fields a restore does not bring back, and why:
// every other field is compared by Restorable, so that live state added
// to the game fails the check until evolve (or the saved state) brings it
// back, or it is listed here.
var Excluded = map[string]string{
	"log":      "the replay buffer: a player who comes back after a restart gets a snapshot",
	"trimmed":  "the replay buffer's bound: a restore numbers on past a gap, and nothing before it resumes",
	"feed":     "the history for a reloaded page: after a restart it begins again, empty",
	"out":      "the outputs, sent already",
	"records":  "the records, handed to the store already",
	"effects":  "the effects asked for, done already (a restore asks for its own: a save, the finishes not stored)",
	"guests":   "the server's answer to a join (Guest), told at every join: what it sets is each player's guest",
	"attempts": "the store's answer to a join (Attempt), asked again at every join: what it sets is each player's unranked and attemptSince",
}

// MemberExcluded are the member's fields a restore does not bring back,
// and why; every other field is compared.
var MemberExcluded = map[string]string{
	"connected": "connection state: a restored player is away until they come back",
	"awayUntil": "connection state: a restored player gets a fresh reconnect window",
	"leaving":   "connection state: a player who left while their finish was stored is away, and is let go once it is or the window ends",
	"placed":    "the round's placements with their times, for the checks of a ranked finish: a restore keeps those after the saved state only (the checks then see fewer)",
}

// Restorable is every field of g that a restore brings back, read by
// reflection and keyed by its path ("members.a.undo"), with a rebuilt
// game's seq less gap. Spectators are not kept, and a round preparing its
// rematch comes back finished, as Save saves it; boards are compared cell
// by cell (who placed each digit, not how the board numbers its placers);
// times by the instant.
func Restorable(g *Game, gap int64) map[string]any {
	out := map[string]any{}
	fields(out, "", reflect.ValueOf(g).Elem(), Excluded)
	out["seq"] = g.seq - gap
	if g.phase == protocol.PhasePreparing {
		out["phase"] = protocol.PhaseFinished
	}
	delete(out, "members")
	for id, m := range g.members {
		if m.role == protocol.RolePlayer {
			fields(out, "members."+id+".", reflect.ValueOf(m).Elem(), MemberExcluded)
		}
	}
	return out
}

// fields puts each field of the struct v not in skip into out, under
// prefix and its name.
func fields(out map[string]any, prefix string, v reflect.Value, skip map[string]string) {
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		if _, ok := skip[name]; ok {
			continue
		}
		f := v.Field(i)
		put(out, prefix+name, reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface())
	}
}

// put puts x into out under key, as the check compares it.
func put(out map[string]any, key string, x any) {
	switch x := x.(type) {
	case time.Time:
		out[key] = x.Round(0).UTC()
	case *board:
		if x == nil {
			out[key] = "none"
			return
		}
		var notes, by []byte
		for cell := range engine.NumCells {
			if n := x.notes[cell]; n.corner|n.centre != 0 {
				notes = strconv.AppendInt(notes, int64(cell), 10)
				notes = strconv.AppendUint(append(notes, ':'), uint64(n.corner), 2)
				notes = strconv.AppendUint(append(notes, '/'), uint64(n.centre), 2)
				notes = append(notes, ' ')
			}
			if id := x.placer(cell); id != "" {
				by = append(append(append(strconv.AppendInt(by, int64(cell), 10), ':'), id...), ' ')
			}
		}
		out[key+".cells"] = x.cells.String()
		out[key+".notes"] = string(notes)
		out[key+".by"] = string(by)
	case Puzzle:
		out[key+".id"], out[key+".level"] = int(x.ID), x.Level
		out[key+".givens"], out[key+".solution"] = x.Givens.String(), x.Solution.String()
	case []change:
		if len(x) == 0 {
			x = nil
		}
		out[key] = x
	case rules:
		out[key] = fmt.Sprintf("%T", x)
	case protocol.Progress:
		if x.Mistakes != nil {
			out[key+".mistakes"] = *x.Mistakes
		}
		x.Mistakes = nil
		out[key] = x
	default:
		out[key] = x
	}
}
