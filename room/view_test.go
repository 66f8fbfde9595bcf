package room

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
)

// viewGame is a running game of mode with players a and b (a hosts) and
// spectator s, each with a digit and a note on their board, a conflict
// cell picked for a, and the clock at now.
type viewGame struct {
	*Game
	now time.Time
	// blank is an empty cell, and digit the solution's digit there.
	blank int
	digit uint8
	// given and own are peers of blank that hold clash as a conflict would
	// name them: a given, and a digit of a's own.
	clash      uint8
	given, own int
	// bs is the empty cell where b placed a right digit.
	bs int
}

func newViewGame(tb testing.TB, mode string) *viewGame {
	tb.Helper()
	gen, err := engine.Generate(engine.GenerateOptions{Level: engine.LevelEasy, Seed: 1})
	require.NoError(tb, err)
	now := time.Date(2030, time.March, 4, 12, 0, 0, 0, time.UTC)
	g, err := NewGame(Config{}, "r00m", mode, Puzzle{ID: 1, Level: "easy", Givens: gen.Givens, Solution: gen.Solution}, now)
	require.NoError(tb, err)
	check := CheckReplay(tb, g, now)
	for _, id := range []string{"a", "b"} {
		_, _, jerr := g.Join(now, id, "Name "+id, false, 0)
		require.Nil(tb, jerr)
	}
	_, _, jerr := g.Join(now, "s", "Name s", true, 0)
	require.Nil(tb, jerr)
	require.Nil(tb, g.Handle(now, "a", &protocol.Msg{Type: protocol.TypeStart}))
	now = g.startsAt
	g.Tick(now)
	require.Equal(tb, protocol.PhaseRunning, g.phase)

	v := &viewGame{Game: g, now: now, given: -1, own: -1}
	// blank is an empty cell with a given peer and an empty peer (own)
	// where a can place the given's digit: a's move of that digit at
	// blank then clashes with both.
	peer := func(a, b int) bool { return slices.Contains(engine.Peers[a][:], uint8(b)) }
	for cell := 0; cell < engine.NumCells && v.given < 0; cell++ {
		if gen.Givens[cell] != 0 {
			continue
		}
		for _, gp := range engine.Peers[cell] {
			d := gen.Givens[gp]
			if d == 0 || v.given >= 0 {
				continue
			}
			for _, op := range engine.Peers[cell] {
				if gen.Givens[op] == 0 && !peer(int(gp), int(op)) && gen.Givens.Conflicts(int(op), d).Empty() {
					v.blank, v.digit, v.clash, v.given, v.own = cell, gen.Solution[cell], d, int(gp), int(op)
					break
				}
			}
		}
	}
	require.GreaterOrEqual(tb, v.given, 0, "no cell fits")
	// a places clash in own (a wrong digit, and one blank clashes with);
	// b places a right digit away from both; each takes a note.
	other := slices.IndexFunc(gen.Givens[:], func(d uint8) bool { return d == 0 })
	for c := range engine.NumCells {
		if gen.Givens[c] == 0 && c != v.blank && c != v.own && !peer(v.own, c) {
			other = c
			break
		}
	}
	v.bs = other
	for i, id := range []string{"a", "b"} {
		cell, d := v.own, int(v.clash)
		if id == "b" {
			cell, d = other, int(gen.Solution[other])
		}
		require.Nil(tb, g.Handle(now, id, &protocol.Msg{Type: protocol.TypeMove, Cell: &cell, Digit: &d}))
		b := g.rules.boardOf(g, g.members[id])
		n := slices.IndexFunc(b.cells[:], func(d uint8) bool { return d == 0 })
		k := 3 + i
		require.Nil(tb, g.Handle(now, id, &protocol.Msg{Type: protocol.TypeNote, Cell: &n, Digit: &k, Kind: protocol.NoteCorner}))
	}
	_, eff := g.Drain()
	check.Step(g, eff, now)
	return v
}

// sample is a fact of each kind, as its handler publishes it: every field
// set, digits and solution cells included.
func (v *viewGame) sample(k kind) fact {
	cell, d := v.blank, int(v.digit)
	id := json.RawMessage(`"c-1"`)
	switch k {
	case kindPresence:
		return fact{kind: k, actor: "a", ev: &protocol.PresenceEvent{Header: protocol.Header{Type: protocol.TypePresence}, Player: "a", Name: "Name a", Role: protocol.RolePlayer, Status: protocol.PresenceAway, Host: "a"}}
	case kindCountdown:
		return fact{kind: k, ev: &protocol.CountdownEvent{Header: protocol.Header{Type: protocol.TypeCountdown}, Seconds: 3, StartsAt: v.now, Now: v.now}}
	case kindState:
		return v.stateFact(v.now)
	case kindMove:
		return fact{kind: k, actor: "a", ev: &protocol.MoveEvent{Header: protocol.Header{Type: protocol.TypeMove}, ID: id, Player: "a", Cell: cell, Digit: d, Cleared: []int{v.own}}}
	case kindEcho:
		return fact{kind: k, actor: "a", ev: &protocol.MoveEvent{Header: protocol.Header{Type: protocol.TypeMove}, ID: id, Player: "a", Cell: cell, Digit: d}}
	case kindNote:
		return fact{kind: k, actor: "a", ev: &protocol.NoteEvent{Header: protocol.Header{Type: protocol.TypeNote}, ID: id, Player: "a", CellNotes: protocol.CellNotes{Cell: cell, Corner: []int{d}, Centre: []int{d}}}}
	case kindColour:
		return fact{kind: k, actor: "a", ev: &protocol.ColourEvent{Header: protocol.Header{Type: protocol.TypeColour}, ID: id, Player: "a", CellColours: protocol.CellColours{Cell: cell, Colours: []int{int(d)}}}}
	case kindConflict:
		err := &protocol.Error{Code: protocol.CodeConflict, Message: "a digit at a cell conflicts", Cell: &cell, Cells: []int{min(v.given, v.own), max(v.given, v.own)}}
		ev := err.Event(0, id)
		ev.Player = "a"
		return fact{kind: k, actor: "a", ev: ev}
	case kindHint:
		until := v.now.Add(time.Minute)
		return fact{kind: k, actor: "a", ev: &protocol.HintEvent{Header: protocol.Header{Type: protocol.TypeHint}, ID: id, Player: "a",
			Step: protocol.Step{Technique: "naked-single", TechniqueName: "Naked single", Explanation: "the only digit left",
				Cells: []int{cell}, Place: []protocol.Mark{{Cell: cell, Digit: d}}, Eliminate: []protocol.Mark{{Cell: v.own, Digit: d}}},
			Wrong: []int{v.own}, Hints: 1, FrozenUntil: &until}}
	case kindProgress:
		mistakes := 1
		return fact{kind: k, actor: "a", ev: &protocol.ProgressEvent{Header: protocol.Header{Type: protocol.TypeProgress}, Player: "a", Progress: protocol.Progress{Filled: 1, Empty: 40, Mistakes: &mistakes}}}
	case kindFinish:
		return fact{kind: k, actor: "a", ev: &protocol.FinishEvent{Header: protocol.Header{Type: protocol.TypeFinish}, Player: "a", Rank: 1, ElapsedMS: 1000, Score: 999}}
	case kindCursor:
		return fact{kind: k, actor: "a", ev: &protocol.CursorEvent{Header: protocol.Header{Type: protocol.TypeCursor}, Player: "a", Cell: cell}}
	case kindPong:
		return fact{kind: k, actor: "a", ev: &protocol.Pong{Header: protocol.Header{Type: protocol.TypePong}, ID: id, Now: v.now}}
	case kindNotice:
		return fact{kind: k, actor: "a", ev: &protocol.ErrorEvent{Header: protocol.Header{Type: protocol.TypeError}, Code: protocol.CodeUnavailable, Message: "try again"}}
	case kindBoardFull:
		return fact{kind: k, actor: "a", ev: &protocol.BoardFullEvent{Header: protocol.Header{Type: protocol.TypeBoardFull}, Message: "not the solution"}}
	case kindBerserk:
		return fact{kind: k, actor: "a", ev: &protocol.BerserkEvent{Header: protocol.Header{Type: protocol.TypeBerserk}, Player: "a"}}
	}
	return fact{kind: k, actor: "a", ev: &protocol.ErrorEvent{Header: protocol.Header{Type: protocol.TypeError}, Code: "new", Message: strconv.Itoa(d)}}
}

// Roles of a viewer in the table: the actor (a, or for a room-wide event a
// player), another player (a rival racer or a co-op partner), a spectator.
const (
	asActor     = "actor"
	asOther     = "other"
	asSpectator = "spectator"
)

var roleIDs = map[string]string{asActor: "a", asOther: "b", asSpectator: "s"}

// seesAll, seesNothing and seesPart are what a viewer gets: the fact's
// event itself, nil, or a copy with less in it, which check then examines.
type sight int

const (
	seesAll sight = iota
	seesNothing
	seesPart
)

func TestView(t *testing.T) {
	type want struct {
		sight sight
		check func(t *testing.T, v *viewGame, full, got protocol.Event)
	}
	all, nothing := want{sight: seesAll}, want{sight: seesNothing}
	// everyone, actorOnly and othersOnly are the same in both modes.
	everyone := map[string]map[string]want{ModeRace: {asActor: all, asOther: all, asSpectator: all}, ModeCoop: {asActor: all, asOther: all, asSpectator: all}}
	actorOnly := map[string]map[string]want{ModeRace: {asActor: all, asOther: nothing, asSpectator: nothing}, ModeCoop: {asActor: all, asOther: nothing, asSpectator: nothing}}
	othersOnly := map[string]map[string]want{ModeRace: {asActor: nothing, asOther: all, asSpectator: all}, ModeCoop: {asActor: nothing, asOther: all, asSpectator: all}}
	privateInRace := map[string]map[string]want{ModeRace: {asActor: all, asOther: nothing, asSpectator: nothing}, ModeCoop: {asActor: all, asOther: all, asSpectator: all}}

	hintTechnique := want{sight: seesPart, check: func(t *testing.T, _ *viewGame, full, got protocol.Event) {
		h := full.(*protocol.HintEvent)
		assert.Equal(t, &protocol.HintEvent{Header: h.Header, Player: "a",
			Hints: h.Hints, FrozenUntil: h.FrozenUntil}, got, "who asked, and the technique")
	}}
	conflict := func(givensOnly bool) want {
		return want{sight: seesPart, check: func(t *testing.T, v *viewGame, full, got protocol.Event) {
			e, ok := got.(*protocol.ErrorEvent)
			require.True(t, ok)
			assert.Nil(t, e.ID, "the mover's message id is theirs")
			assert.Equal(t, "a", e.Player)
			assert.Equal(t, protocol.CodeConflict, e.Code)
			assert.Equal(t, full.(*protocol.ErrorEvent).Cell, e.Cell)
			assert.Contains(t, e.Message, "Name a's move at "+engine.CellName(v.blank))
			if givensOnly {
				assert.Equal(t, []int{v.given}, e.Cells, "only the clashing given")
			} else {
				assert.Equal(t, full.(*protocol.ErrorEvent).Cells, e.Cells, "the team sees every clash")
			}
		}}
	}
	// noMistakes is a racer's progress while the race runs: all of it but
	// the count of mistakes, for everyone, the racer included.
	noMistakes := want{sight: seesPart, check: func(t *testing.T, _ *viewGame, full, got protocol.Event) {
		p := *full.(*protocol.ProgressEvent)
		p.Mistakes = nil
		assert.Equal(t, &p, got)
	}}
	// state is a member's own snapshot: board says whose board they see
	// ("team", "own" or none).
	state := func(board string) want {
		return want{sight: seesPart, check: func(t *testing.T, v *viewGame, _, got protocol.Event) {
			st, ok := got.(*protocol.State)
			require.True(t, ok)
			s := st.Room
			assert.Equal(t, v.pz.Givens.String(), s.Givens)
			assert.Empty(t, s.Solution, "no solution while the game runs")
			for _, p := range s.Players {
				assert.Empty(t, p.Board, "no player's board while the game runs")
				if v.rules.liveMistakes() {
					assert.NotNil(t, p.Mistakes, "co-op shows mistakes as they are made")
				} else {
					assert.Nil(t, p.Mistakes, "a racer's mistakes are nobody's until their finish")
				}
			}
			switch board {
			case "team":
				assert.Equal(t, v.team.cells.String(), s.Board)
				assert.Equal(t, v.team.noteList(), s.Notes)
				assert.Equal(t, map[string][]int{"a": {v.own}, "b": {v.bs}}, s.PlacedBy, "who placed each digit")
			case "own":
				// Whose the viewer is is checked by the caller, through
				// the board's content.
				assert.NotEmpty(t, s.Board)
				assert.Len(t, s.Notes, 1)
			default:
				assert.Empty(t, s.Board, "no board")
				assert.Empty(t, s.Notes, "no notes")
			}
			if board != "team" {
				assert.Nil(t, s.PlacedBy, "who placed a digit is told with a shared board only")
			}
		}}
	}

	tests := map[kind]map[string]map[string]want{
		kindPresence:  othersOnly,
		kindCountdown: everyone,
		kindState: {
			ModeRace: {asActor: state("own"), asOther: state("own"), asSpectator: state("")},
			ModeCoop: {asActor: state("team"), asOther: state("team"), asSpectator: state("team")},
		},
		kindMove:      privateInRace,
		kindEcho:      actorOnly,
		kindNote:      privateInRace,
		kindColour:    privateInRace,
		kindConflict:  {ModeRace: {asActor: all, asOther: conflict(true), asSpectator: conflict(true)}, ModeCoop: {asActor: all, asOther: conflict(false), asSpectator: conflict(false)}},
		kindHint:      {ModeRace: {asActor: all, asOther: hintTechnique, asSpectator: hintTechnique}, ModeCoop: everyone[ModeCoop]},
		kindProgress:  {ModeRace: {asActor: noMistakes, asOther: noMistakes, asSpectator: noMistakes}, ModeCoop: everyone[ModeCoop]},
		kindFinish:    everyone,
		kindCursor:    othersOnly,
		kindPong:      actorOnly,
		kindNotice:    actorOnly,
		kindBoardFull: actorOnly,
		kindBerserk:   everyone,
	}
	for k := kind(0); k < numKinds; k++ {
		require.Contains(t, tests, k, "kind %d has no row: write view's rule for it and a row here", k)
	}

	for _, mode := range []string{ModeRace, ModeCoop} {
		v := newViewGame(t, mode)
		for k := kind(0); k < numKinds; k++ {
			for _, role := range []string{asActor, asOther, asSpectator} {
				f := v.sample(k)
				name := f.ev.Head().Type + "/" + strconv.Itoa(int(k)) + "/" + mode + "/" + role
				t.Run(name, func(t *testing.T) {
					w := tests[k][mode][role]
					got := v.view(&f, v.viewerOf(roleIDs[role]))
					switch w.sight {
					case seesAll:
						assert.Same(t, f.ev, got)
					case seesNothing:
						assert.Nil(t, got)
					case seesPart:
						require.NotNil(t, got)
						w.check(t, v, f.ev, got)
					}
					// A racer's own snapshot shows their own board.
					if mode == ModeRace && role != asActor && (k != kindState || role == asSpectator) {
						v.noDigits(t, got)
					}
				})
			}
		}
		t.Run("own board/"+mode, func(t *testing.T) {
			// In a race each player sees their own board, the outsider
			// none; in co-op everyone sees the team's.
			for _, id := range []string{"a", "b", "s", ""} {
				f := v.stateFact(v.now)
				s := v.view(&f, v.viewerOf(id)).(*protocol.State).Room
				switch {
				case mode == ModeCoop:
					assert.Equal(t, v.team.cells.String(), s.Board, id)
				case id == "a" || id == "b":
					assert.Equal(t, v.members[id].board.cells.String(), s.Board, id)
					assert.NotEqual(t, v.members["a"].board.cells, v.members["b"].board.cells, "the racers' boards differ")
				default:
					assert.Empty(t, s.Board, id)
					v.noDigits(t, &protocol.State{Room: s})
				}
				assert.Equal(t, s, v.Snapshot(id, v.now), "Snapshot is the state's view")
			}
		})
	}
}

// noDigits checks that ev, as a race's other racer or spectator gets it,
// holds no digit of anyone's and no cell derived from the solution: only
// the givens, which everyone sees.
func (v *viewGame) noDigits(t *testing.T, ev protocol.Event) {
	t.Helper()
	if ev == nil {
		return
	}
	data, err := json.Marshal(ev)
	require.NoError(t, err)
	assert.NotContains(t, string(data), v.pz.Solution.String())
	var tree any
	require.NoError(t, json.Unmarshal(data, &tree))
	forbidden := []string{"digit", "place", "eliminate", "wrong", "explanation", "cleared", "board", "notes", "corner", "centre", "solution", "placed_by"}
	var walk func(path string, x any)
	walk = func(path string, x any) {
		switch x := x.(type) {
		case map[string]any:
			for key, val := range x {
				assert.NotContains(t, forbidden, key, "%s.%s reaches a race's onlookers: %s", path, key, data)
				if key == "cells" {
					for _, c := range val.([]any) {
						assert.NotZero(t, v.pz.Givens[int(c.(float64))], "%s.cells names a cell that is not a given: %s", path, data)
					}
				}
				walk(path+"."+key, val)
			}
		case []any:
			for _, e := range x {
				walk(path+"[]", e)
			}
		}
	}
	walk("", tree)
}

// TestViewDefaultIsTheActorsAlone checks that a kind view has no rule for
// reaches its actor and nobody else.
func TestViewDefaultIsTheActorsAlone(t *testing.T) {
	for _, mode := range []string{ModeRace, ModeCoop} {
		v := newViewGame(t, mode)
		f := v.sample(numKinds)
		assert.Same(t, f.ev, v.view(&f, v.viewerOf("a")), mode)
		for _, id := range []string{"b", "s", ""} {
			assert.Nil(t, v.view(&f, v.viewerOf(id)), "%s: %q", mode, id)
		}
	}
}

// TestViewCoversEveryEventType checks that each event type the protocol
// package declares (protocol/message.go and events.go) is the event of some
// kind's sample, so that a new event type cannot be sent without a rule in
// view and a row in TestView.
func TestViewCoversEveryEventType(t *testing.T) {
	fset := token.NewFileSet()
	var decls []ast.Decl
	for _, name := range []string{"message.go", "events.go"} {
		file, err := parser.ParseFile(fset, filepath.Join("..", "protocol", name), nil, 0)
		require.NoError(t, err)
		decls = append(decls, file.Decls...)
	}
	var types []string
	for _, decl := range decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if !strings.HasPrefix(n.Name, "Type") || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				require.True(t, ok, "%s is not a string literal", n.Name)
				s, err := strconv.Unquote(lit.Value)
				require.NoError(t, err)
				types = append(types, s)
			}
		}
	}
	require.Contains(t, types, protocol.TypeMove, "the parse found the type constants")

	// Messages only clients send, and the welcome, which Join returns to
	// the joiner alone with the state's view as its room.
	notEvents := []string{protocol.TypeJoin, protocol.TypeStart, protocol.TypeUndo, protocol.TypeRedo, protocol.TypeRematch, protocol.TypePing, protocol.TypeLeave, protocol.TypeWelcome}
	v := newViewGame(t, ModeCoop)
	var sent []string
	for k := kind(0); k < numKinds; k++ {
		sent = append(sent, v.sample(k).ev.Head().Type)
	}
	for _, typ := range types {
		if !slices.Contains(notEvents, typ) {
			assert.Contains(t, sent, typ, "event type %q has no kind: view has no rule for it", typ)
		}
	}
}

// TestPublishDeliversTheView checks that what each member receives of a
// published fact, through the outputs' To and Skip, is exactly their view
// of it, with one sequence number for a logged fact and none for a reply.
func TestPublishDeliversTheView(t *testing.T) {
	for _, mode := range []string{ModeRace, ModeCoop} {
		v := newViewGame(t, mode)
		for k := kind(0); k <= numKinds; k++ {
			f := v.sample(k)
			seq := v.seq
			v.publish(v.now, f)
			out, _ := v.Drain()
			if k.logged() {
				seq++
			}
			assert.Equal(t, seq, v.seq, "%s kind %d", mode, k)
			for _, id := range []string{"a", "b", "s"} {
				want := v.view(&f, v.viewerOf(id))
				var got []protocol.Event
				for i := range out {
					assert.Equal(t, k.logged(), out[i].Logged)
					if out[i].For(id) {
						assert.Equal(t, seq, out[i].Event.Head().Seq)
						got = append(got, out[i].Event)
					}
				}
				if want == nil {
					assert.Empty(t, got, "%s kind %d: %s gets nothing", mode, k, id)
					continue
				}
				want.Head().Seq = seq // a view made anew has not been numbered
				if assert.Len(t, got, 1, "%s kind %d: %s gets one view", mode, k, id) {
					assert.Equal(t, want, got[0], "%s kind %d: %s", mode, k, id)
				}
			}
		}
	}
}
