package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// The solver lab: the engine opened to players over HTTP (POST /api/solve,
// /api/grade, /api/steps and GET /api/generate), and the check of a
// player's own puzzle for POST /api/rooms. Every lab request costs engine
// work on the server's cores, so each is limited per address (LabRate),
// reads a bounded body, runs under a deadline and waits for one of a few
// work slots.

const (
	// maxLabBody is the most of a lab request's body that is read: a
	// puzzle laid out 9×9 with separators is a few hundred bytes.
	maxLabBody = 2048
	// labTimeout bounds one lab request's engine work. A puzzle solves or
	// grades in milliseconds and generates in well under a second; past
	// this the request answers unavailable.
	labTimeout = 3 * time.Second
	// maxLabSteps bounds the steps one /api/steps answer lists; the
	// logical solver takes at most 81×9 steps, and a person reads far
	// fewer.
	maxLabSteps = 400
	// retryLab is Retry-After of a lab request refused by LabRate.
	retryLab = "60"
)

// labGate bounds the lab's engine work: slots holds one token per piece of
// work under way across all clients, one a core, so that lab requests
// cannot take the cores the rooms need (work abandoned at its deadline is
// counted until it ends), and limit is each request's time.
type labGate struct {
	slots chan struct{}
	limit time.Duration
	log   *slog.Logger
}

func newLabGate(log *slog.Logger) labGate {
	return labGate{slots: make(chan struct{}, max(1, runtime.GOMAXPROCS(0))), limit: labTimeout, log: log}
}

// LabRequest is the body of POST /api/solve, /api/grade and /api/steps.
type LabRequest struct {
	// Puzzle is 81 cells row by row, '.' or '0' for an empty cell; spaces,
	// line breaks and the separators | + - of a 9×9 layout are ignored.
	Puzzle string `json:"puzzle"`
}

// SolveStats is the solver's work on one puzzle.
type SolveStats struct {
	Guesses      int `json:"guesses"`
	Propagations int `json:"propagations"`
	Iterations   int `json:"iterations"`
}

// SolveResponse is POST /api/solve's answer.
type SolveResponse struct {
	Puzzle string `json:"puzzle"`
	// Solutions is how many solutions the puzzle has, counted up to 2.
	Solutions int `json:"solutions"`
	// Solution is the first solution found; absent when there is none.
	Solution  string     `json:"solution,omitempty"`
	ElapsedUS int64      `json:"elapsed_us"`
	Stats     SolveStats `json:"stats"`
}

// GradeResponse is POST /api/grade's answer.
type GradeResponse struct {
	Puzzle string `json:"puzzle"`
	Level  string `json:"level"`
	Score  int    `json:"score"`
	// Hardest is the hardest technique's id and HardestName its name.
	Hardest     string `json:"hardest"`
	HardestName string `json:"hardest_name"`
	// Counts is the steps (for singles: digits placed) of each technique.
	Counts []TechniqueCount `json:"counts"`
	// Solved is false when the techniques get stuck (level "beyond").
	Solved bool `json:"solved"`
	// SE is the puzzle's rating on the Sudoku Explainer scale; nil when the
	// rater's techniques cannot finish it (see engine.RateSE).
	SE *engine.SERating `json:"se,omitempty"`
}

// TechniqueCount is how often the logical solver used one technique.
type TechniqueCount struct {
	Technique string `json:"technique"`
	Name      string `json:"name"`
	Count     int    `json:"count"`
}

// StepsResponse is POST /api/steps's answer: the logical solution.
type StepsResponse struct {
	Puzzle string          `json:"puzzle"`
	Level  string          `json:"level"`
	Steps  []protocol.Step `json:"steps"`
	// Solved is false when the techniques get stuck before the end.
	Solved bool `json:"solved"`
	// Truncated is set when there were more than the steps listed.
	Truncated bool `json:"truncated,omitempty"`
}

// GenerateResponse is GET /api/generate's answer.
type GenerateResponse struct {
	Puzzle string `json:"puzzle"`
	Level  string `json:"level"`
	// Seed is the generator's seed, as a decimal string (it may exceed
	// what a JavaScript number holds): the same level and seed always
	// make the same puzzle.
	Seed  string `json:"seed"`
	Score int    `json:"score"`
	// SE is the puzzle's Sudoku Explainer rating, within its level's
	// range (engine.Difficulties).
	SE engine.SERating `json:"se"`
}

// limitLab takes a token of the address's lab budget, or answers 429.
func (s *Server) limitLab(w http.ResponseWriter, r *http.Request) bool {
	if s.lab.allow(clientAddr(r), s.clock.Now()) {
		return true
	}
	w.Header().Set("Retry-After", retryLab)
	writeError(w, protocol.CodeRateLimited, "too many solver lab requests from this address: wait a minute")
	return false
}

// labWork runs fn in one of the gate's slots within its time and writes
// fn's answer (or its *room.Error as a 400). The engine takes no context,
// so fn runs in its own goroutine: the request answers at the deadline,
// and the slot is held until fn ends.
func labWork[T any](gate labGate, w http.ResponseWriter, r *http.Request, fn func() (T, error)) {
	ctx, cancel := context.WithTimeout(r.Context(), gate.limit)
	defer cancel()
	select {
	case gate.slots <- struct{}{}:
	case <-ctx.Done():
		writeError(w, protocol.CodeUnavailable, "the solver is busy: try again")
		return
	}
	type answer struct {
		v   T
		err error
	}
	done := make(chan answer, 1)
	go func() {
		defer func() { <-gate.slots }()
		v, err := fn()
		done <- answer{v, err}
	}()
	select {
	case a := <-done:
		var rerr *protocol.Error
		switch {
		case errors.As(a.err, &rerr):
			writeRefusal(w, rerr)
		case a.err != nil:
			gate.log.Error("solver lab", "path", r.URL.Path, "err", a.err)
			writeError(w, protocol.CodeUnavailable, "the solver could not do it: try again")
		default:
			writeJSON(w, http.StatusOK, a.v)
		}
	case <-ctx.Done():
		gate.log.Warn("solver lab: out of time", "path", r.URL.Path, "limit", gate.limit)
		writeError(w, protocol.CodeUnavailable,
			fmt.Sprintf("the solver took longer than %v: try another puzzle", gate.limit))
	}
}

// labPuzzle is the puzzle of a lab request that the address's limit lets
// through, or false once the refusal is written.
func (s *Server) labPuzzle(w http.ResponseWriter, r *http.Request) (engine.Grid, bool) {
	if !s.limitLab(w, r) {
		return engine.Grid{}, false
	}
	g, rerr := readLabPuzzle(r.Body)
	if rerr != nil {
		writeRefusal(w, rerr)
		return engine.Grid{}, false
	}
	return g, true
}

// readLabPuzzle reads a lab body and parses its puzzle; a bad one is a
// bad_puzzle with the parser's message (which line and column, and why).
func readLabPuzzle(body io.Reader) (engine.Grid, *protocol.Error) {
	const want = `the body must be one JSON object such as {"puzzle":"53..7...."}`
	data, rerr := readBody(body, maxLabBody, want)
	if rerr != nil {
		return engine.Grid{}, rerr
	}
	var req LabRequest
	if err := protocol.DecodeObject(data, &req, true); err != nil {
		return engine.Grid{}, protocol.Errorf(protocol.CodeBadJSON, "%s, and no field but puzzle", want)
	}
	return parsePuzzle(req.Puzzle)
}

// readBody reads a JSON request body of at most limit bytes in valid
// UTF-8; want says what the body must be.
func readBody(body io.Reader, limit int, want string) ([]byte, *protocol.Error) {
	data, err := io.ReadAll(io.LimitReader(body, int64(limit)+1))
	switch {
	case err != nil:
		return nil, protocol.Errorf(protocol.CodeBadJSON, "%s: the body could not be read", want)
	case len(data) > limit:
		return nil, protocol.Errorf(protocol.CodeBadJSON, "%s, of at most %d bytes", want, limit)
	case !utf8.Valid(data):
		return nil, protocol.Errorf(protocol.CodeBadJSON, "%s: %v", want, protocol.ErrNotUTF8)
	}
	return data, nil
}

// parsePuzzle is engine.Parse with its error as a bad_puzzle.
func parsePuzzle(text string) (engine.Grid, *protocol.Error) {
	if text == "" {
		return engine.Grid{}, protocol.Errorf(protocol.CodeBadPuzzle, "the puzzle is empty: give its 81 cells, '.' or 0 for an empty one")
	}
	g, err := engine.Parse(text)
	if err != nil {
		return engine.Grid{}, protocol.Errorf(protocol.CodeBadPuzzle, "the puzzle is not 81 cells of digits and dots: %v", err)
	}
	return g, nil
}

// ownPuzzle checks the puzzle of a POST /api/rooms on a player's own
// puzzle: a race or co-op room, no date, a puzzle that parses and has one
// solution. It returns the puzzle graded (room.OwnPuzzle).
func ownPuzzle(req CreateRoomRequest) (room.Puzzle, *protocol.Error) {
	if m, ok := room.ModeOf(req.Mode); !ok || !m.Own {
		return room.Puzzle{}, protocol.Errorf(protocol.CodeBadField, "your own puzzle is played in a %s room",
			room.ModeNames("or", func(m room.Mode) bool { return m.Own }))
	}
	if req.Date != "" {
		return room.Puzzle{}, protocol.Errorf(protocol.CodeBadField, "a room on your own puzzle has no date")
	}
	g, rerr := parsePuzzle(req.Puzzle)
	if rerr != nil {
		return room.Puzzle{}, rerr
	}
	pz, err := room.OwnPuzzle(g)
	if errors.As(err, &rerr) {
		return room.Puzzle{}, rerr
	}
	if err != nil {
		return room.Puzzle{}, protocol.Errorf(protocol.CodeUnavailable, "the puzzle could not be checked just now: try again")
	}
	return pz, nil
}

func (s *Server) solve(w http.ResponseWriter, r *http.Request) {
	g, ok := s.labPuzzle(w, r)
	if !ok {
		return
	}
	labWork(s.labGate, w, r, func() (SolveResponse, error) {
		res := engine.Solve(g, 2)
		out := SolveResponse{
			Puzzle: g.String(), Solutions: res.Count, ElapsedUS: res.Stats.Elapsed.Microseconds(),
			Stats: SolveStats{Guesses: res.Stats.Guesses, Propagations: res.Stats.Propagations, Iterations: res.Stats.Iterations},
		}
		if res.Count > 0 {
			out.Solution = res.Solution.String()
		}
		return out, nil
	})
}

// gradeOf grades a puzzle for the lab: one with no solution or several is
// refused with the code that says which.
func gradeOf(g engine.Grid) (engine.Grade, error) {
	gr, err := engine.GradePuzzle(g)
	if err != nil {
		return gr, room.PuzzleError(err)
	}
	return gr, nil
}

func (s *Server) grade(w http.ResponseWriter, r *http.Request) {
	g, ok := s.labPuzzle(w, r)
	if !ok {
		return
	}
	labWork(s.labGate, w, r, func() (GradeResponse, error) {
		gr, err := gradeOf(g)
		if err != nil {
			return GradeResponse{}, err
		}
		out := GradeResponse{
			Puzzle: g.String(), Level: gr.Level.String(), Score: gr.Score,
			Hardest: gr.Hardest.String(), HardestName: gr.Hardest.Name(), Solved: gr.Solved,
			Counts: []TechniqueCount{},
		}
		if se, ok := engine.RateSE(g); ok {
			out.SE = &se
		}
		for _, t := range engine.Techniques() {
			if n := gr.Counts[t]; n > 0 {
				out.Counts = append(out.Counts, TechniqueCount{Technique: t.String(), Name: t.Name(), Count: n})
			}
		}
		return out, nil
	})
}

func (s *Server) steps(w http.ResponseWriter, r *http.Request) {
	g, ok := s.labPuzzle(w, r)
	if !ok {
		return
	}
	labWork(s.labGate, w, r, func() (StepsResponse, error) {
		gr, err := gradeOf(g)
		if err != nil {
			return StepsResponse{}, err
		}
		return stepsOf(g, gr, maxLabSteps), nil
	})
}

// stepsOf is the answer of /api/steps for a graded puzzle, with at most
// limit steps.
func stepsOf(g engine.Grid, gr engine.Grade, limit int) StepsResponse {
	out := StepsResponse{Puzzle: g.String(), Level: gr.Level.String(), Solved: gr.Solved, Steps: []protocol.Step{}}
	steps := gr.Steps
	if len(steps) > limit {
		steps, out.Truncated = steps[:limit], true
	}
	for _, st := range steps {
		out.Steps = append(out.Steps, labStep(st))
	}
	return out
}

// labStep is a step as the lab shows it: its technique's id and name, its
// explanation, the digits it places and the candidates it removes, the
// cells of its pattern, and every cell it names to highlight.
func labStep(st engine.Step) protocol.Step {
	var named engine.CellSet
	for _, c := range st.Cells {
		named.Add(c)
	}
	for _, c := range slices.Concat(st.Place, st.Eliminate) {
		named.Add(c.Cell)
	}
	return protocol.Step{
		Technique: st.Technique.String(), Name: st.Technique.Name(), Explanation: st.Explanation(),
		Place: protocol.Marks(st.Place), Eliminate: protocol.Marks(st.Eliminate), Cells: st.Cells,
		Highlight: named.Cells(make([]int, 0, named.Len())),
	}
}

func (s *Server) generate(w http.ResponseWriter, r *http.Request) {
	if !s.limitLab(w, r) {
		return
	}
	q := r.URL.Query()
	level := q.Get("level")
	if level == "" {
		level = "medium"
	}
	// The generator makes the rooms' levels only, not "beyond".
	d, _, err := engine.ParseDifficulty(level)
	if err != nil || !slices.Contains(room.Levels, level) {
		writeRefusal(w, badLevel())
		return
	}
	var seed uint64
	if v := q.Get("seed"); v != "" {
		seed, err = strconv.ParseUint(v, 10, 64)
		if err != nil {
			writeError(w, protocol.CodeBadField, "seed must be a whole number from 0 to 18446744073709551615")
			return
		}
	} else {
		var b [8]byte
		_, _ = rand.Read(b[:])
		for _, x := range b {
			seed = seed<<8 | uint64(x)
		}
		// A seed a person can copy: at most 9 digits.
		seed %= 1_000_000_000
	}
	labWork(s.labGate, w, r, func() (GenerateResponse, error) {
		gen, err := engine.Generate(d.Options(LabSeed(seed), false))
		if err != nil {
			return GenerateResponse{}, fmt.Errorf("server: generate %s %d: %w", level, seed, err)
		}
		return GenerateResponse{Puzzle: gen.Givens.String(), Level: level, Seed: strconv.FormatUint(seed, 10), Score: gen.Grade.Score, SE: gen.SE}, nil
	})
}

// LabSeed is the generator's seed for the lab's seed: its SHA-256, so that
// no lab seed is a daily puzzle's seed (room.DailySeed) and the lab cannot
// be asked for a day's daily, today's or one still to come.
func LabSeed(seed uint64) uint64 {
	sum := sha256.Sum256([]byte("lab:" + strconv.FormatUint(seed, 10)))
	return binary.BigEndian.Uint64(sum[:8])
}
