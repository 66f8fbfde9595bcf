package server

import (
	"encoding/json"
	"net/http"

	"github.com/sudoku-arena/arena/protocol"
)

// httpStatus is the one table from an error code of the JSON API to the
// HTTP status it is answered with. A code it does not list is a refusal of
// the request as it was sent (a bad field, a bad puzzle, a bad date): 400.
// docs/protocol.md lists each endpoint's answers; TestHTTPStatusOf keeps
// this table in step with the codes the handlers use.
var httpStatus = map[string]int{
	protocol.CodeRoomNotFound:       http.StatusNotFound,
	protocol.CodePlayerNotFound:     http.StatusNotFound,
	protocol.CodeTournamentNotFound: http.StatusNotFound,
	protocol.CodeTournamentOver:     http.StatusConflict,
	protocol.CodeNotInTournament:    http.StatusConflict,
	protocol.CodeReplayLive:         http.StatusConflict,
	protocol.CodeReplayExpired:      http.StatusGone,
	protocol.CodeRateLimited:        http.StatusTooManyRequests,
	protocol.CodeTooManyRooms:       http.StatusTooManyRequests,
	protocol.CodeServerFull:         http.StatusServiceUnavailable,
	protocol.CodeUnavailable:        http.StatusServiceUnavailable,
	protocol.CodeOverloaded:         http.StatusServiceUnavailable,
	protocol.CodeRetry:              http.StatusServiceUnavailable,
	protocol.CodeBadToken:           http.StatusUnauthorized,
	protocol.CodeHandleTaken:        http.StatusConflict,
	protocol.CodeAlreadyAccount:     http.StatusConflict,
	protocol.CodeNotSignedIn:        http.StatusUnauthorized,
	protocol.CodeBadOrigin:          http.StatusForbidden,
	protocol.CodeBadContentType:     http.StatusUnsupportedMediaType,
	protocol.CodeWrongHost:          http.StatusMisdirectedRequest,
	protocol.CodeAlreadyQueued:      http.StatusConflict,
	protocol.CodeTicketNotFound:     http.StatusNotFound,
}

// statusOf is the HTTP status an API error of the code answers with.
func statusOf(code string) int {
	if s, ok := httpStatus[code]; ok {
		return s
	}
	return http.StatusBadRequest
}

// writeError answers an API request with an error: its code's status
// (statusOf) and a body of {"error": {"code", "message"}}.
func writeError(w http.ResponseWriter, code, message string) {
	var e apiError
	e.Error.Code, e.Error.Message = code, message
	writeJSON(w, statusOf(code), e)
}

// apiError is the JSON body of every API error.
type apiError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
