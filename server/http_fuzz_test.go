package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
	"github.com/sudoku-arena/arena/room/roomtest"
)

// noPlayers is a Players whose database is always away; the HTTP handlers
// fuzzed here do not ask it.
type noPlayers struct{}

func (noPlayers) CreatePlayer(context.Context, string, string, []byte) error {
	return errors.New("no players here")
}

func (noPlayers) PlayerByToken(context.Context, []byte) (string, string, bool, error) {
	return "", "", false, room.ErrUnknownPlayer
}

func (noPlayers) Ping(context.Context) error { return errors.New("no database here") }

// fuzzServer is a server over an in-memory store, with no limit on room
// creation, shut down with the test.
func fuzzServer(tb testing.TB, st *roomtest.Store) (*Server, *room.Registry) {
	tb.Helper()
	cfg := Config{}.WithDefaults()
	cfg.CreateRate = 0
	rooms := room.NewRegistry(cfg.Rooms, st)
	tb.Cleanup(func() { _ = rooms.Shutdown(context.Background()) })
	return New(cfg, rooms, noPlayers{}, nil, nil), rooms
}

// checkAPIError fails unless the answer is a JSON error of the status with
// one of the codes.
func checkAPIError(t *testing.T, rec *httptest.ResponseRecorder, status int, codes ...string) {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status %d, want %d: %s", rec.Code, status, rec.Body.Bytes())
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q", ct)
	}
	body := rec.Body.Bytes()
	if !utf8.Valid(body) {
		t.Fatalf("the body is not valid UTF-8: %q", body)
	}
	var e apiError
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil || dec.More() {
		t.Fatalf("the body is not one API error: %q (%v)", body, err)
	}
	if !slices.Contains(codes, e.Error.Code) || e.Error.Message == "" {
		t.Fatalf("error %+v, want a message and one of %v", e.Error, codes)
	}
}

// FuzzCreateRoom: no POST /api/rooms body panics the handler; one that is
// not a valid request is answered 400 with a JSON error (bad_json or
// bad_field), and one that is reaches the checks of its date and of its
// own puzzle (400 bad_field, bad_puzzle, no_solution or many_solutions)
// and then the registry. The store fails every puzzle, so that a body that
// passes them all is answered 503 unavailable and no room is left
// running. Seeds: the list below and testdata/fuzz/FuzzCreateRoom.
func FuzzCreateRoom(f *testing.F) {
	for _, s := range []string{
		`{"mode":"race","level":"easy"}`,
		`{"mode":"coop"}`,
		` {"level":"expert","mode":"race"} `,
		`{"mode":"duel"}`,
		`{"mode":"race","level":"insane"}`,
		`{"mode":"race","extra":1}`,
		`{"mode":"race"}{"mode":"coop"}`,
		`{"mode":"race"} x`,
		`{"mode":1}`,
		"{\"mode\":\"race\xff\"}",
		`{"mode":"ra\u0063e"}`,
		`{"MODE":"race"}`,
		`not json`, `[]`, `null`, ``, `{`,
		`{"mode":"race","level":"` + strings.Repeat("x", 1100) + `"}`,
		`{"mode":"daily"}`,
		`{"mode":"daily","level":"hard","date":"2020-01-01"}`,
		`{"mode":"race","date":"9999-12-31"}`,
		`{"mode":"coop","date":"2026-01-01"}`,
		`{"mode":"coop","puzzle":"1........"}`,
		`{"mode":"race","puzzle":"` + strings.Repeat(".", 81) + `"}`,
		`{"mode":"race","level":"easy","puzzle":"` + strings.Repeat("1", 81) + `"}`,
	} {
		f.Add([]byte(s))
	}
	st := roomtest.NewStore()
	st.Fail(errors.New("no puzzles while fuzzing"))
	s, rooms := fuzzServer(f, st)
	h := s.Handler()
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest(http.MethodPost, "/api/rooms", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		_, rerr := readCreateRoom(bytes.NewReader(body))
		switch {
		case rerr != nil:
			checkAPIError(t, rec, http.StatusBadRequest, protocol.CodeBadJSON, protocol.CodeBadField)
		case rec.Code == http.StatusBadRequest:
			checkAPIError(t, rec, http.StatusBadRequest, protocol.CodeBadField, protocol.CodeBadPuzzle, protocol.CodeNoSolution, protocol.CodeManySolutions)
		default:
			checkAPIError(t, rec, http.StatusServiceUnavailable, protocol.CodeUnavailable)
		}
		if !validCreateRoom(body) && rerr == nil {
			t.Fatalf("accepted %q", body)
		}
		if n := rooms.Stats().Rooms; n != 0 {
			t.Fatalf("%d rooms made", n)
		}
	})
}

// validCreateRoom is what a POST /api/rooms body may be, said another way
// than readCreateRoom says it: at most 1,024 bytes of valid UTF-8, one
// JSON object whose keys are only mode, level, date and puzzle (matched
// without regard to case, as encoding/json does), each a string, with a
// known mode, and a known level or none; a room on its own puzzle takes no
// level.
func validCreateRoom(body []byte) bool {
	if len(body) > maxCreateBody || !utf8.Valid(body) || !json.Valid(body) {
		return false
	}
	var fields map[string]any
	if json.Unmarshal(body, &fields) != nil {
		return false
	}
	var mode, level, puzzle string
	for k, v := range fields {
		s, ok := v.(string)
		switch {
		case !ok && v != nil:
			return false
		case strings.EqualFold(k, "mode"):
			mode = s
		case strings.EqualFold(k, "level"):
			level = s
		case strings.EqualFold(k, "puzzle"):
			puzzle = s
		case strings.EqualFold(k, "date"):
		default:
			return false
		}
	}
	if puzzle != "" && level != "" {
		return false
	}
	return (mode == room.ModeRace || mode == room.ModeCoop || mode == room.ModeDaily) && (level == "" || slices.Contains(room.Levels, level))
}

// FuzzGetRoom: no room id in GET /api/rooms/{id} panics the handler; the
// live room's id is answered 200 with its snapshot, and every other id that
// reaches the handler 404 room_not_found as JSON, whatever bytes it holds.
// Some paths never reach it: an empty id, "." and "..", and some with a "/"
// are the router's to redirect or refuse. Seeds: the list below and
// testdata/fuzz/FuzzGetRoom.
func FuzzGetRoom(f *testing.F) {
	s, rooms := fuzzServer(f, roomtest.NewStore())
	rm, err := rooms.Create(context.Background(), room.ModeRace, "easy")
	if err != nil {
		f.Fatal(err)
	}
	live := rm.ID()
	for _, s := range []string{
		live, strings.ToUpper(live), live + " ", "nosuchroom", "", ".", "..", "a/b", "%zz", "?x=1",
		"\xff\xfe", "\u202e", strings.Repeat("k", 300),
	} {
		f.Add(s)
	}
	h := s.Handler()
	f.Fuzz(func(t *testing.T, id string) {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.URL = &url.URL{Path: "/api/rooms/" + id, RawPath: "/api/rooms/" + url.PathEscape(id)}
		req.RequestURI = req.URL.RequestURI()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		routed := id != "" && id != "." && id != ".." && !strings.Contains(id, "/")
		switch {
		case id == live:
			if rec.Code != http.StatusOK {
				t.Fatalf("the live room: status %d", rec.Code)
			}
			var snap protocol.Snapshot
			if !utf8.Valid(rec.Body.Bytes()) || json.Unmarshal(rec.Body.Bytes(), &snap) != nil || snap.ID != live {
				t.Fatalf("the live room: %q", rec.Body.Bytes())
			}
		case !routed && rec.Header().Get("Content-Type") != "application/json":
			// The router's own answer: a path it cleans ("." and "..",
			// "//") is redirected, one no route has (GET /api/rooms/,
			// a trailing "/") is its plain 404.
			switch rec.Code {
			case http.StatusNotFound, http.StatusMovedPermanently, http.StatusTemporaryRedirect:
			default:
				t.Fatalf("id %q: status %d from the router", id, rec.Code)
			}
		default:
			checkAPIError(t, rec, http.StatusNotFound, protocol.CodeRoomNotFound)
		}
	})
}

// FuzzLabSolve: no POST /api/solve body panics the handler; one that is not
// one JSON object holding a puzzle the parser reads is answered 400 with a
// JSON error (bad_json or bad_puzzle), and one that is 200 with that
// puzzle, 0, 1 or 2 solutions and, when there is one, a solution that keeps
// every given and has no clash. Seeds: the list below.
func FuzzLabSolve(f *testing.F) {
	for _, s := range []string{
		`{"puzzle":"8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4.."}`,
		`{"puzzle":"` + strings.Repeat(".", 81) + `"}`,
		`{"puzzle":"11` + strings.Repeat(".", 79) + `"}`,
		`{"puzzle":"` + strings.Repeat(".", 80) + `"}`,
		`{"puzzle":"123 456 789\n` + strings.Repeat(".", 72) + `"}`,
		`{"puzzle":""}`, `{"puzzle":1}`, `{"puzzle":"x"}`, `{"puzzle":"..."}{}`,
		"{\"puzzle\":\"\xff\"}", `{}`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	cfg := Config{}.WithDefaults()
	cfg.LabRate = 0
	rooms := room.NewRegistry(cfg.Rooms, roomtest.NewStore())
	f.Cleanup(func() { _ = rooms.Shutdown(context.Background()) })
	h := New(cfg, rooms, noPlayers{}, nil, nil).Handler()
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest(http.MethodPost, "/api/solve", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		g, rerr := readLabPuzzle(bytes.NewReader(body))
		if rerr != nil {
			checkAPIError(t, rec, http.StatusBadRequest, protocol.CodeBadJSON, protocol.CodeBadPuzzle)
			return
		}
		if rec.Code != http.StatusOK {
			t.Fatalf("status %d for a puzzle the parser reads: %s", rec.Code, rec.Body.Bytes())
		}
		var out SolveResponse
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("the answer is not a SolveResponse: %v: %s", err, rec.Body.Bytes())
		}
		if out.Puzzle != g.String() || out.Solutions < 0 || out.Solutions > 2 || (out.Solutions > 0) != (out.Solution != "") {
			t.Fatalf("answer %+v for %s", out, g)
		}
		if out.Solution == "" {
			return
		}
		sol, err := engine.Parse(out.Solution)
		if err != nil || !sol.Complete() {
			t.Fatalf("solution %q: %v", out.Solution, err)
		}
		for i, d := range g {
			if d != 0 && sol[i] != d {
				t.Fatalf("the solution changes given r%dc%d", i/9+1, i%9+1)
			}
		}
	})
}
