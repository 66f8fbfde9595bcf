package server

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/engine"
	"github.com/sudoku-arena/arena/protocol"
)

// labAnswer runs labWork on fn through the gate and returns the answer.
func labAnswer(t *testing.T, gate labGate, fn func() (int, error)) (int, apiError) {
	t.Helper()
	rec := httptest.NewRecorder()
	labWork(gate, rec, httptest.NewRequest(http.MethodPost, "/api/solve", nil), fn)
	var e apiError
	if rec.Code != http.StatusOK {
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &e))
	}
	return rec.Code, e
}

// Lab work that runs past its time is answered at the deadline, and its
// slot stays taken until it ends; with every slot taken a request waits
// no longer than its deadline either.
func TestLabWorkIsBoundedInTime(t *testing.T) {
	t.Parallel()
	gate := labGate{slots: make(chan struct{}, 2), limit: 50 * time.Millisecond, log: slog.New(slog.DiscardHandler)}
	release := make(chan struct{})
	start := time.Now()
	code, e := labAnswer(t, gate, func() (int, error) { <-release; return 1, nil })
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Equal(t, protocol.CodeUnavailable, e.Error.Code)
	assert.Contains(t, e.Error.Message, "took longer than 50ms")
	assert.Equal(t, 1, len(gate.slots), "the abandoned work holds its slot")
	close(release)
	require.Eventually(t, func() bool { return len(gate.slots) == 0 }, 5*time.Second, time.Millisecond)

	for range cap(gate.slots) {
		gate.slots <- struct{}{}
	}
	code, e = labAnswer(t, gate, func() (int, error) { t.Error("ran without a slot"); return 0, nil })
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, e.Error.Message, "busy")
	for range cap(gate.slots) {
		<-gate.slots
	}
	code, _ = labAnswer(t, gate, func() (int, error) { return 1, nil })
	assert.Equal(t, http.StatusOK, code)
}

func TestLabStepsAreBounded(t *testing.T) {
	t.Parallel()
	g := engine.MustParse("4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......")
	gr, err := engine.GradePuzzle(g)
	require.NoError(t, err)
	require.Greater(t, len(gr.Steps), 5)
	all := stepsOf(g, gr, maxLabSteps)
	assert.False(t, all.Truncated)
	assert.Len(t, all.Steps, len(gr.Steps))
	some := stepsOf(g, gr, 5)
	assert.True(t, some.Truncated)
	assert.Equal(t, all.Steps[:5], some.Steps)
}
