package protocol

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkID echoes a string or a number as bytes the server wrote, and
// refuses anything else.
func TestCheckID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, raw, want, code string }{
		{"none", ``, ``, ""},
		{"a plain string", `"m1"`, `"m1"`, ""},
		{"escapes decoded", `"\u00e9t\u00e9"`, `"été"`, ""},
		{"HTML escaped", `"<a&b>"`, `"\u003ca\u0026b\u003e"`, ""},
		{"a lone surrogate", `"\ud800"`, `"` + "\ufffd" + `"`, ""},
		{"an integer", `12`, `12`, ""},
		{"a number as written", `-1.5E+3`, `-1.5E+3`, ""},
		{"64 bytes", `"` + strings.Repeat("x", 62) + `"`, `"` + strings.Repeat("x", 62) + `"`, ""},
		{"65 bytes", `"` + strings.Repeat("x", 63) + `"`, ``, CodeBadField},
		{"not valid UTF-8", "\"xA\xff\"", ``, CodeBadField},
		{"null", `null`, ``, CodeBadField},
		{"a bool", `true`, ``, CodeBadField},
		{"an object", `{"a":1}`, ``, CodeBadField},
		{"an array", `[1]`, ``, CodeBadField},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := checkID(json.RawMessage(tc.raw))
			if tc.code != "" {
				require.NotNil(t, err)
				assert.Equal(t, tc.code, err.Code)
				assert.Nil(t, got)
				return
			}
			require.Nil(t, err)
			assert.Equal(t, tc.want, string(got))
		})
	}
}

// A display name is seen as it is: what would hide or fake it is refused,
// with a sentence that says what; accents and other scripts are names.
func TestCleanName(t *testing.T) {
	for _, ok := range []string{"Ann", "  Ann  ", "Zoë", "Zoe\u0308", "Аnn", "李雷", "R2-D2", "Ann (guest)", "e\u0301\u0302"} {
		_, err := CleanName(ok)
		assert.Nil(t, err, "%q", ok)
	}
	for bad, says := range map[string]string{
		"An\u2028n":                         "line break",
		"\u3164":                            "invisible",
		"A\u200bnn":                         "control",
		"Ann\u202e":                         "control",
		"Ann\ufe0f":                         "invisible",
		"Z" + strings.Repeat("\u0301", 23):  "accents",
		"e\u0301\u0302\u0303":               "accents",
		"!!!":                               "letter or a digit",
		strings.Repeat("x", MaxNameRunes+1): "at most",
	} {
		_, err := CleanName(bad)
		if assert.NotNil(t, err, "%q", bad) {
			assert.Equal(t, CodeBadName, err.Code)
			assert.Contains(t, err.Message, says, "%q", bad)
		}
	}
}
