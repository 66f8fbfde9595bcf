package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/ws"
	"github.com/sudoku-arena/arena/lobby"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/room"
)

// The protocol document and the sources it must keep up with, relative to
// this package's directory (where go test runs).
var (
	protocolDocPath  = filepath.Join("..", "docs", "protocol.md")
	protocolGoPaths  = []string{filepath.Join("..", "protocol", "message.go"), filepath.Join("..", "protocol", "events.go")}
	errorsGoPath     = filepath.Join("..", "protocol", "errors.go")
	closeCodesGoPath = filepath.Join("..", "protocol", "close.go")
)

// docServerEvents makes the Go value each server event type decodes into. A
// struct in protocol/events.go that embeds Header and is missing here fails
// TestProtocolDoc, so a new event cannot go undocumented.
var docServerEvents = map[string]func() any{
	protocol.TypeWelcome:   func() any { return new(protocol.Welcome) },
	protocol.TypeState:     func() any { return new(protocol.State) },
	protocol.TypeCountdown: func() any { return new(protocol.CountdownEvent) },
	protocol.TypeMove:      func() any { return new(protocol.MoveEvent) },
	protocol.TypeNote:      func() any { return new(protocol.NoteEvent) },
	protocol.TypeColour:    func() any { return new(protocol.ColourEvent) },
	protocol.TypeHint:      func() any { return new(protocol.HintEvent) },
	protocol.TypeProgress:  func() any { return new(protocol.ProgressEvent) },
	protocol.TypePresence:  func() any { return new(protocol.PresenceEvent) },
	protocol.TypeCursor:    func() any { return new(protocol.CursorEvent) },
	protocol.TypeFinish:    func() any { return new(protocol.FinishEvent) },
	protocol.TypeError:     func() any { return new(protocol.ErrorEvent) },
	protocol.TypePong:      func() any { return new(protocol.Pong) },
	protocol.TypeBoardFull: func() any { return new(protocol.BoardFullEvent) },
	protocol.TypeBerserk:   func() any { return new(protocol.BerserkEvent) },
}

// docHTTPBodies makes the Go value each "http NAME" example decodes into.
var docHTTPBodies = map[string]func() any{
	"api-error":            func() any { return new(apiError) },
	"create-room-request":  func() any { return new(CreateRoomRequest) },
	"create-room-response": func() any { return new(CreateRoomResponse) },
	"room-snapshot":        func() any { return new(protocol.Snapshot) },
	"livez":                func() any { return new(map[string]string) },
	"readyz":               func() any { return new(map[string]string) },
	"healthz":              func() any { return new(map[string]string) },
	"leaderboard-row":      func() any { return new(LeaderRow) },
	"daily":                func() any { return new(DailyResponse) },
	"daily-leaderboard":    func() any { return new(LeaderboardResponse) },
	"player":               func() any { return new(PlayerResponse) },
	"player-days":          func() any { return new(PlayerDaysResponse) },
	"player-games":         func() any { return new(PlayerGamesResponse) },
	"tournaments":          func() any { return new(TournamentsResponse) },
	"tournament":           func() any { return new(TournamentResponse) },
	"tournament-event":     func() any { return new(TournamentEvent) },
	"player-tournaments":   func() any { return new(PlayerTournamentsResponse) },
	"best-times":           func() any { return new(BestTimesResponse) },
	"lab-request":          func() any { return new(LabRequest) },
	"solve":                func() any { return new(SolveResponse) },
	"grade":                func() any { return new(GradeResponse) },
	"steps":                func() any { return new(StepsResponse) },
	"generate":             func() any { return new(GenerateResponse) },
	"replay":               func() any { return new(ReplayResponse) },
	"me":                   func() any { return new(MeResponse) },
	"session-request":      func() any { return new(SessionRequest) },
	"handle-request":       func() any { return new(HandleRequest) },
	"ceremony":             func() any { return new(Ceremony) },
	"finish-request":       func() any { return new(FinishRequest) },
	"signup":               func() any { return new(SignUpResponse) },
	"link":                 func() any { return new(LinkResponse) },
	"code-request":         func() any { return new(CodeRequest) },
	"settings-request":     func() any { return new(SettingsRequest) },
	"queue-request":        func() any { return new(QueueRequest) },
	"queue-status":         func() any { return new(lobby.Status) },
	"room-ratings":         func() any { return new(RoomRatingsResponse) },
	"player-rating":        func() any { return new(lobby.PlayerRatingJSON) },
	"rating-board":         func() any { return new(RatingBoardResponse) },
}

// TestProtocolDoc keeps docs/protocol.md and the code in step: every JSON
// example is checked against the structs and the server's shape check, and
// every message type, event type, error code and close code the code
// declares (read from its source, not listed here) must be documented. The
// configuration table is internal/config's to check (TestDocs there).
func TestProtocolDoc(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(protocolDocPath)
	require.NoError(t, err)
	examples, err := parseDocExamples(doc)
	require.NoError(t, err)
	require.NotEmpty(t, examples)
	types := docProtocolTypes(t)
	codes := docConstStrings(t, errorsGoPath, "Code")
	require.NotEmpty(t, codes)

	docEachExample(t, "ClientExamples", examples, "client", func(t *testing.T, ex docExample) {
		docCheckClientExample(t, ex)
		if ex.refused != "" {
			assert.Contains(t, codes, ex.refused, "the marker names an error code that protocol/errors.go does not have")
		}
	})

	docEachExample(t, "ServerExamples", examples, "server", func(t *testing.T, ex docExample) {
		keys := docTopKeys(t, ex.body)
		require.GreaterOrEqual(t, len(keys), 2)
		assert.Equal(t, []string{"type", "seq"}, keys[:2], "an event starts with type, then seq")
		var head struct {
			Type string `json:"type"`
			Code string `json:"code"`
		}
		require.NoError(t, json.Unmarshal(ex.body, &head))
		newEvent, ok := docServerEvents[head.Type]
		require.True(t, ok, "no server event has the type %q", head.Type)
		docCheckRoundTrip(t, ex.body, newEvent())
		if head.Type == protocol.TypeError {
			assert.Contains(t, codes, head.Code, "the error's code is not in protocol/errors.go")
		}
	})

	docEachExample(t, "HTTPExamples", examples, "http", func(t *testing.T, ex docExample) {
		newBody, ok := docHTTPBodies[ex.arg]
		require.True(t, ok, "unknown HTTP body %q: one of %v", ex.arg, docSortedKeys(docHTTPBodies))
		body := newBody()
		docCheckRoundTrip(t, ex.body, body)
		if e, ok := body.(*apiError); ok {
			assert.Contains(t, codes, e.Error.Code, "the error's code is not in protocol/errors.go")
		}
	})

	t.Run("EveryTypeHasAnExample", func(t *testing.T) {
		client, server := map[string]int{}, map[string]int{}
		for _, ex := range examples {
			var head struct {
				Type string `json:"type"`
			}
			if json.Unmarshal(ex.body, &head) != nil {
				continue // reported by the example's own check
			}
			switch {
			case ex.kind == "client" && ex.refused == "":
				client[head.Type]++
			case ex.kind == "server":
				server[head.Type]++
			}
		}
		for _, typ := range types.client {
			assert.Positive(t, client[typ], "client message %q has no <!-- client --> example", typ)
		}
		for _, typ := range types.server {
			assert.Contains(t, docServerEvents, typ, "server event %q is missing from docServerEvents in this test", typ)
		}
		all := append(slices.Clone(types.client), types.server...)
		for typ := range docServerEvents {
			assert.Contains(t, all, typ, "docServerEvents has %q, which protocol/message.go and events.go do not declare", typ)
			assert.Positive(t, server[typ], "server event %q has no <!-- server --> example", typ)
		}
		var made []string
		for _, newEvent := range docServerEvents {
			made = append(made, reflect.TypeOf(newEvent()).Elem().Name())
		}
		for _, name := range types.eventStructs {
			assert.Contains(t, made, name, "room.%s embeds Header but docServerEvents in this test does not make it", name)
		}
	})

	t.Run("FairPlayInExamples", func(t *testing.T) {
		checked := 0
		for _, ex := range examples {
			if snap, ok := docExampleSnapshot(t, ex); ok {
				checked++
				docCheckMistakesTold(t, ex, snap)
				docCheckPlacedBy(t, ex, snap)
			}
		}
		assert.Positive(t, checked, "no example holds a snapshot")
	})

	t.Run("ErrorCodes", func(t *testing.T) {
		rows := docTable(t, doc, "Error codes")
		documented := map[string]bool{}
		for _, row := range rows {
			code, ok := docBackticked(row[0])
			if !ok {
				continue
			}
			assert.False(t, documented[code], "error code %q is in the table twice", code)
			documented[code] = true
			assert.Contains(t, codes, code, "the table has error code %q, which protocol/errors.go does not declare", code)
		}
		for _, code := range codes {
			assert.True(t, documented[code], "error code %q (protocol/errors.go) is missing from the table", code)
		}
	})

	t.Run("HTTPStatuses", func(t *testing.T) {
		// The table's HTTP uses of a code give its status in parentheses;
		// statusOf, the server's one table, must answer with it.
		checked := 0
		for _, row := range docTable(t, doc, "Error codes") {
			code, ok := docBackticked(row[0])
			if !ok {
				continue
			}
			_, http, ok := strings.Cut(row[len(row)-1], "HTTP:")
			if !ok {
				continue
			}
			for _, m := range docHTTPStatusRE.FindAllStringSubmatch(http, -1) {
				want, err := strconv.Atoi(m[1])
				require.NoError(t, err)
				assert.Equal(t, want, statusOf(code), "error code %q: the table says HTTP %d", code, want)
				checked++
			}
		}
		assert.GreaterOrEqual(t, checked, len(httpStatus), "fewer HTTP statuses in the table than codes in httpStatus")
	})

	t.Run("CloseCodes", func(t *testing.T) {
		consts := docCloseCodeConsts(t)
		require.NotEmpty(t, consts)
		documented := map[string]bool{}
		for _, row := range docTable(t, doc, "Close codes") {
			if len(row) < 2 {
				continue
			}
			code, err := strconv.Atoi(row[0])
			if err != nil {
				continue // the header row
			}
			name, ok := docBackticked(row[1])
			require.True(t, ok, "close code %d: the second column must be the constant's name in backticks", code)
			assert.False(t, documented[name], "close code %s is in the table twice", name)
			documented[name] = true
			value, ok := consts[name]
			if !assert.True(t, ok, "the table has %s, which protocol/close.go does not declare", name) {
				continue
			}
			assert.NoError(t, value(code), "close code %s", name)
		}
		for name := range consts {
			assert.True(t, documented[name], "close code %s (protocol/close.go) is missing from the table", name)
		}
	})

	t.Run("Limits", func(t *testing.T) {
		cfg := DefaultConfig()
		require.Equal(t, time.Second, cfg.PingEvery, "the Limits table says pings refill one a second")
		limits := string(docSection(t, doc, "Limits"))
		for _, want := range []string{
			fmt.Sprintf("%s bytes", docThousands(int(cfg.ReadLimit))),
			fmt.Sprintf("%d messages a second, bursts of %d", int(cfg.RateLimit), cfg.RateBurst),
			fmt.Sprintf("%d events per connection", cfg.SendQueue),
			fmt.Sprintf("%d s after connecting", int(cfg.JoinTimeout/time.Second)),
			fmt.Sprintf("%d s per write", int(cfg.WriteTimeout/time.Second)),
			fmt.Sprintf("%d s from a message's first byte to its last", int(cfg.MessageTimeout/time.Second)),
			fmt.Sprintf("%d frames a message at most", ws.MaxMessageFrames),
			fmt.Sprintf("%d at once, then one a second", cfg.PingBurst),
			fmt.Sprintf("%d bytes of JSON", protocol.MaxIDBytes),
			fmt.Sprintf("%d characters", protocol.MaxRoomLen),
			fmt.Sprintf("at most %d characters", protocol.MaxNameRunes),
			fmt.Sprintf("| `token` | %d bytes", protocol.MaxTokenLen),
			fmt.Sprintf("%d requests a minute per client address, in bursts of %d (`REPLAY_RATE`), each page counted; %s events a page",
				cfg.ReplayRate, cfg.ReplayRate, docThousands(MaxReplayEvents)),
			fmt.Sprintf("%d a minute per client address, in bursts of %d (`RECORD_RATE`)", cfg.RecordRate, cfg.RecordRate),
		} {
			assert.Contains(t, limits, want, "the Limits table")
		}
		replay := strings.Join(strings.Fields(string(doc)), " ")
		assert.Contains(t, replay, fmt.Sprintf("An answer holds at most %s events.", docThousands(MaxReplayEvents)))
		assert.Contains(t, replay, fmt.Sprintf("ready to send, for up to %d minutes", int(cfg.ReplayCache.Age/time.Minute)))
	})
}

// docExampleSnapshot is the snapshot an example holds: a welcome's or a
// state's room, or GET /api/rooms/{id}'s body.
func docExampleSnapshot(t *testing.T, ex docExample) (*protocol.Snapshot, bool) {
	t.Helper()
	switch {
	case ex.kind == "http" && ex.arg == "room-snapshot":
		var s protocol.Snapshot
		require.NoError(t, json.Unmarshal(ex.body, &s))
		return &s, true
	case ex.kind == "server":
		var ev struct {
			Type string             `json:"type"`
			Room *protocol.Snapshot `json:"room"`
		}
		require.NoError(t, json.Unmarshal(ex.body, &ev))
		return ev.Room, ev.Room != nil && (ev.Type == protocol.TypeWelcome || ev.Type == protocol.TypeState)
	}
	return nil, false
}

// docCheckMistakesTold checks an example's snapshot against the fair-play
// rule: co-op shows every player's mistakes; a race shows a player's only
// once they have finished (a rank) or the round is over.
func docCheckMistakesTold(t *testing.T, ex docExample, s *protocol.Snapshot) {
	t.Helper()
	for _, p := range s.Players {
		told := s.Mode == room.ModeCoop || s.Phase == protocol.PhaseFinished || s.Phase == protocol.PhasePreparing || p.Rank > 0
		assert.Equal(t, told, p.Mistakes != nil, "%s: %s's mistakes in a %s room, phase %s, rank %d",
			ex.name(), p.Name, s.Mode, s.Phase, p.Rank)
	}
}

// docCheckPlacedBy checks an example's placed_by: co-op only, and naming
// only cells of the board that hold a digit and are not givens.
func docCheckPlacedBy(t *testing.T, ex docExample, s *protocol.Snapshot) {
	t.Helper()
	if s.Mode != room.ModeCoop {
		assert.Nil(t, s.PlacedBy, "%s: placed_by in a race", ex.name())
		return
	}
	for id, cells := range s.PlacedBy {
		assert.True(t, slices.IsSorted(cells), "%s: %s's cells in order", ex.name(), id)
		for _, c := range cells {
			if assert.True(t, c >= 0 && c < len(s.Board) && c < len(s.Givens), "%s: %s's cell %d", ex.name(), id, c) {
				assert.True(t, s.Board[c] != '.' && s.Givens[c] == '.', "%s: %s's cell %d is not a placed digit", ex.name(), id, c)
			}
		}
	}
}

// docExample is one marked JSON example of the protocol document.
type docExample struct {
	line    int    // the line of its opening fence
	kind    string // "client", "server" or "http"
	arg     string // what follows the kind in the marker
	refused string // for "client refused CODE": CODE
	body    []byte
}

func (ex docExample) name() string { return fmt.Sprintf("protocol.md:%d", ex.line) }

// docEachExample runs check on every example of the kind, each as a subtest
// named after its line, all under one subtest called name.
func docEachExample(t *testing.T, name string, examples []docExample, kind string, check func(*testing.T, docExample)) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		for _, ex := range examples {
			if ex.kind == kind {
				t.Run(ex.name(), func(t *testing.T) { check(t, ex) })
			}
		}
	})
}

var docMarkerRE = regexp.MustCompile(`^<!-- (client|server|http)(?: ([^>]*?))? -->$`)

// parseDocExamples reads every ```json block of the document together with
// the marker on the line before it. A json block without a marker, or a
// marker that is not followed by one, is an error.
func parseDocExamples(doc []byte) ([]docExample, error) {
	var (
		out     []docExample
		prev    string
		marker  []string // the previous line's marker, if it was one
		inFence bool
		isJSON  bool
		cur     docExample
		body    bytes.Buffer
	)
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case inFence && strings.TrimSpace(line) == "```":
			inFence = false
			if isJSON {
				cur.body = slices.Clone(body.Bytes())
				out = append(out, cur)
			}
		case inFence:
			if isJSON {
				body.WriteString(line)
				body.WriteByte('\n')
			}
		case strings.HasPrefix(line, "```"):
			inFence = true
			isJSON = strings.TrimSpace(strings.TrimPrefix(line, "```")) == "json"
			if marker != nil && !isJSON {
				return nil, fmt.Errorf("line %d: the marker %q is followed by a fence that is not ```json", n, prev)
			}
			if !isJSON {
				break
			}
			if marker == nil {
				return nil, fmt.Errorf("line %d: a json block without a marker line before it (<!-- client -->, <!-- server --> or <!-- http NAME -->)", n)
			}
			cur = docExample{line: n, kind: marker[1], arg: marker[2]}
			body.Reset()
			switch fields := strings.Fields(cur.arg); {
			case cur.kind == "client" && len(fields) == 2 && fields[0] == "refused":
				cur.refused = fields[1]
			case cur.kind == "http" && len(fields) == 1:
			case cur.kind != "http" && len(fields) == 0:
			default:
				return nil, fmt.Errorf("line %d: bad marker %q", n-1, prev)
			}
		case marker != nil:
			return nil, fmt.Errorf("line %d: the marker %q must be right before a ```json fence", n-1, prev)
		}
		marker = nil
		if !inFence {
			marker = docMarkerRE.FindStringSubmatch(line)
		}
		prev = line
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if inFence {
		return nil, fmt.Errorf("the document ends inside a fence")
	}
	if marker != nil {
		return nil, fmt.Errorf("the document ends with a marker")
	}
	return out, nil
}

// docCheckClientExample decodes a client example strictly into protocol.Msg and
// runs it through the server's shape check. A refused example may hold a
// field of the wrong type, and its refusal must then echo its id.
func docCheckClientExample(t *testing.T, ex docExample) {
	t.Helper()
	keys := docTopKeys(t, ex.body)
	require.NotEmpty(t, keys)
	assert.Equal(t, "type", keys[0], "a message starts with type")
	var msg protocol.Msg
	dec := json.NewDecoder(bytes.NewReader(ex.body))
	dec.DisallowUnknownFields()
	err := dec.Decode(&msg)
	var te *json.UnmarshalTypeError
	if ex.refused == "" || !errors.As(err, &te) {
		require.NoError(t, err, "%s", ex.body)
	}
	require.False(t, dec.More(), "one JSON object per example")
	got, rerr := protocol.Decode(ex.body)
	if ex.refused == "" {
		assert.Nil(t, rerr, "the server refuses the example %s", ex.body)
		return
	}
	if assert.NotNil(t, rerr, "the server accepts an example marked refused: %s", ex.body) {
		assert.Equal(t, ex.refused, rerr.Code, "refused with %q", rerr.Message)
	}
	if te != nil && len(msg.ID) > 0 && assert.NotNil(t, got, "%s", ex.body) {
		assert.JSONEq(t, string(msg.ID), string(got.ID), "the refusal echoes the id")
	}
}

// docCheckRoundTrip decodes data strictly into v and checks that v encodes
// back to the same JSON: no field the struct lacks, none it would leave
// out (omitempty) or add.
func docCheckRoundTrip(t *testing.T, data []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(v), "decode into %T: %s", v, data)
	require.False(t, dec.More(), "one JSON object per example")
	again, err := json.Marshal(v)
	require.NoError(t, err)
	var want, got any
	require.NoError(t, json.Unmarshal(data, &want))
	require.NoError(t, json.Unmarshal(again, &got))
	if !reflect.DeepEqual(want, got) {
		var compact bytes.Buffer
		_ = json.Compact(&compact, data)
		t.Errorf("%T does not round-trip:\n doc:  %s\n code: %s", v, compact.Bytes(), again)
	}
}

// docTopKeys is the keys of a JSON object, in order.
func docTopKeys(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	require.NoError(t, err, "%s", data)
	require.Equal(t, json.Delim('{'), tok, "an example is a JSON object: %s", data)
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		require.NoError(t, err, "%s", data)
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip), "%s", data)
	}
	return keys
}

// docSection is the text under the "## title" heading, up to the next
// heading of that level.
func docSection(t *testing.T, doc []byte, title string) []byte {
	t.Helper()
	head := []byte("\n## " + title + "\n")
	i := bytes.Index(doc, head)
	require.GreaterOrEqual(t, i, 0, "the document has no %q section", "## "+title)
	sec := doc[i+len(head):]
	if j := bytes.Index(sec, []byte("\n## ")); j >= 0 {
		sec = sec[:j]
	}
	return sec
}

// docTable is the cells of the table rows in a section, trimmed.
func docTable(t *testing.T, doc []byte, title string) [][]string {
	t.Helper()
	var rows [][]string
	for line := range strings.Lines(string(docSection(t, doc, title))) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|--") || strings.HasPrefix(line, "| --") {
			continue
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
			cells = append(cells, strings.TrimSpace(c))
		}
		rows = append(rows, cells)
	}
	require.NotEmpty(t, rows, "the %q section has no table", title)
	return rows
}

// docHTTPStatusRE finds "(404" or "(429, Retry-After…" in the error
// codes table's HTTP uses of a code.
var docHTTPStatusRE = regexp.MustCompile(`\(([45][0-9][0-9])\b`)

var docBacktickedRE = regexp.MustCompile("^`([^`]+)`$")

// docBackticked is s without its backticks when s is one code span.
func docBackticked(s string) (string, bool) {
	m := docBacktickedRE.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	return m[1], true
}

func docParseGo(t *testing.T, path string) *ast.File {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
	require.NoError(t, err)
	return f
}

// docConstStrings is the values of the string constants in path whose names
// start with prefix.
func docConstStrings(t *testing.T, path, prefix string) []string {
	t.Helper()
	var out []string
	for _, spec := range docConstSpecs(docParseGo(t, path)) {
		for i, name := range spec.Names {
			if strings.HasPrefix(name.Name, prefix) && i < len(spec.Values) {
				out = append(out, docStringLit(t, spec.Values[i]))
			}
		}
	}
	return out
}

func docConstSpecs(f *ast.File) []*ast.ValueSpec {
	var out []*ast.ValueSpec
	for _, decl := range f.Decls {
		if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.CONST {
			for _, spec := range gd.Specs {
				out = append(out, spec.(*ast.ValueSpec))
			}
		}
	}
	return out
}

func docStringLit(t *testing.T, e ast.Expr) string {
	t.Helper()
	lit, ok := e.(*ast.BasicLit)
	require.True(t, ok && lit.Kind == token.STRING, "want a string literal, got %T", e)
	s, err := strconv.Unquote(lit.Value)
	require.NoError(t, err)
	return s
}

// docDeclaredTypes is what protocol/message.go and events.go declare of the wire protocol.
type docDeclaredTypes struct {
	client, server []string
	// eventStructs are the structs that embed Header: the server events.
	eventStructs []string
}

// docProtocolTypes reads protocol/message.go and events.go: the Type constants, split by their
// block's comment into client messages ("client to server") and server
// events ("server to client"), and the event structs.
func docProtocolTypes(t *testing.T) docDeclaredTypes {
	t.Helper()
	var decls []ast.Decl
	for _, path := range protocolGoPaths {
		decls = append(decls, docParseGo(t, path).Decls...)
	}
	var d docDeclaredTypes
	for _, decl := range decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok {
			continue
		}
		switch gd.Tok {
		case token.CONST:
			var values []string
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if strings.HasPrefix(name.Name, "Type") && i < len(vs.Values) {
						values = append(values, docStringLit(t, vs.Values[i]))
					}
				}
			}
			if len(values) == 0 {
				continue
			}
			doc := strings.ToLower(gd.Doc.Text())
			switch {
			case strings.Contains(doc, "client to server"):
				d.client = append(d.client, values...)
			case strings.Contains(doc, "server to client"):
				d.server = append(d.server, values...)
			default:
				t.Fatalf("protocol: the block of %v says neither \"client to server\" nor \"server to client\"", values)
			}
		case token.TYPE:
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, field := range st.Fields.List {
					if id, ok := field.Type.(*ast.Ident); ok && len(field.Names) == 0 && id.Name == "Header" {
						d.eventStructs = append(d.eventStructs, ts.Name.Name)
					}
				}
			}
		}
	}
	require.NotEmpty(t, d.client, "no client message types found in protocol/message.go and events.go")
	require.NotEmpty(t, d.server, "no server event types found in protocol/message.go and events.go")
	require.NotEmpty(t, d.eventStructs, "no event structs found in protocol/message.go and events.go")
	return d
}

// docCloseCodeConsts reads the Close constants of protocol/close.go, each a
// CloseCode declared as a number. Each maps to a check of the number the
// document gives it: the declared one, and below 4000 a code RFC 6455
// names (as coder/websocket, the tests' client, knows them).
func docCloseCodeConsts(t *testing.T) map[string]func(int) error {
	t.Helper()
	out := map[string]func(int) error{}
	for _, spec := range docConstSpecs(docParseGo(t, closeCodesGoPath)) {
		for i, name := range spec.Names {
			if !strings.HasPrefix(name.Name, "Close") || i >= len(spec.Values) {
				continue
			}
			typ, ok := spec.Type.(*ast.Ident)
			require.True(t, ok && typ.Name == "CloseCode", "%s: want a CloseCode", name.Name)
			lit, ok := spec.Values[i].(*ast.BasicLit)
			require.True(t, ok && lit.Kind == token.INT, "%s: want a number, got %T", name.Name, spec.Values[i])
			n, err := strconv.Atoi(lit.Value)
			require.NoError(t, err)
			out[name.Name] = func(code int) error {
				if code != n {
					return fmt.Errorf("documented as %d, declared as %d", code, n)
				}
				if got := websocket.StatusCode(code).String(); code < 4000 && strings.HasPrefix(got, "StatusCode(") {
					return fmt.Errorf("%d is below 4000 but not a code RFC 6455 names", code)
				}
				return nil
			}
		}
	}
	return out
}

// docThousands writes n with commas between groups of three digits, as the
// document does.
func docThousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func docSortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
