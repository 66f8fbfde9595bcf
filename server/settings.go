package server

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/sudoku-arena/arena/protocol"
)

// MaxSettingsBytes bounds an account's settings, as JSON: a browser
// client's handful of switches fits many times over.
const MaxSettingsBytes = 2048

// SettingsRequest is POST /api/account/settings's body: the settings, a
// JSON object the server keeps as it is, for the client to read back.
type SettingsRequest struct {
	Settings json.RawMessage `json:"settings"`
}

// putSettings is POST /api/account/settings: an account keeps its browser
// client's settings, so that they follow it to every browser it signs in
// on. A guest's stay in their browser (not_signed_in).
func (s *Server) putSettings(w http.ResponseWriter, r *http.Request) {
	var req SettingsRequest
	ar, ok := s.startAccount(w, r, &req)
	if !ok || !needAccount(w, ar) {
		return
	}
	settings, err := checkSettings(req.Settings)
	if err != nil {
		writeRefusal(w, err)
		return
	}
	if err := s.accounts.PutSettings(r.Context(), ar.player.ID, settings); err != nil {
		s.accountError(w, "put settings", err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// checkSettings refuses settings that are not one JSON object of at most
// MaxSettingsBytes, and answers them compacted.
func checkSettings(raw json.RawMessage) (json.RawMessage, *protocol.Error) {
	var out bytes.Buffer
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' || json.Compact(&out, t) != nil {
		return nil, protocol.Errorf(protocol.CodeBadField, "settings must be a JSON object")
	}
	if out.Len() > MaxSettingsBytes {
		return nil, protocol.Errorf(protocol.CodeBadField, "settings are %d bytes of JSON: at most %d", out.Len(), MaxSettingsBytes)
	}
	return out.Bytes(), nil
}
