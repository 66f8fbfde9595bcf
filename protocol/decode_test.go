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
