package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/protocol"
	"github.com/sudoku-arena/arena/server"
)

// signedUp is a browser signed up as a new account with the handle, and
// the account's passkey.
func (e *acctEnv) signedUp(handle string) (*browser, *arenatest.Passkey) {
	pk := arenatest.NewPasskey(e.origin)
	b := e.browser()
	b.signUp(handle, pk)
	return b, pk
}

// An account keeps its browser client's settings: GET /api/me has none
// until POST /api/account/settings saves some, then them (on another
// browser signed in to the account too); what is not a JSON object, or is
// too long, is refused with bad_field and changes nothing; a guest and a
// browser signed in to nothing are refused with not_signed_in.
func TestAccountSettings(t *testing.T) {
	t.Parallel()
	e := newAcctEnv(t)
	b, pk := e.signedUp("Ada")
	assert.Nil(t, b.me().Account.Settings, "none saved yet")

	status, code := b.call(http.MethodPost, "/api/account/settings", map[string]any{"settings": map[string]any{"same": false, "palette": "safe"}}, nil)
	assert.Equal(t, http.StatusNoContent, status, code)
	assert.JSONEq(t, `{"same":false,"palette":"safe"}`, string(b.me().Account.Settings))

	other := e.browser()
	other.signIn(pk)
	assert.JSONEq(t, `{"same":false,"palette":"safe"}`, string(other.me().Account.Settings), "the settings follow the account")

	for _, bad := range []any{
		map[string]any{"settings": []int{1}},
		map[string]any{"settings": "safe"},
		map[string]any{"settings": nil},
		map[string]any{},
		map[string]any{"settings": map[string]string{"x": strings.Repeat("y", server.MaxSettingsBytes)}},
	} {
		b.refused(http.MethodPost, "/api/account/settings", bad, http.StatusBadRequest, protocol.CodeBadField)
	}
	assert.JSONEq(t, `{"same":false,"palette":"safe"}`, string(b.me().Account.Settings), "a refusal changes nothing")

	guest := e.browser()
	guest.guest("Gus")
	guest.refused(http.MethodPost, "/api/account/settings", map[string]any{"settings": map[string]any{}}, http.StatusUnauthorized, protocol.CodeNotSignedIn)
	e.browser().refused(http.MethodPost, "/api/account/settings", map[string]any{"settings": map[string]any{}}, http.StatusUnauthorized, protocol.CodeNotSignedIn)

}
