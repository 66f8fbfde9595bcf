package account

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckHandleAccepts(t *testing.T) {
	for _, tc := range []struct{ raw, handle, key string }{
		{"Ann", "Ann", "ann"},
		{"ANN", "ANN", "ann"},
		{"Ann Lee", "Ann Lee", "ann lee"},
		{"Ann_1", "Ann_1", "ann_l"}, // TR39: 1 looks like l
		{"Ann-1", "Ann-1", "ann-l"},
		{"a.b", "a.b", "a.b"},
		{"Kevin_m", "Kevin_m", "kevin_rn"},                   // TR39: m looks like rn
		{"Ｋｅｖｉｎ", "Kevin", "kevin"},                          // full width to the usual width
		{"Zoe\u0308", "Zo\u00eb", "zoe\u0308"},               // shown NFC, keyed NFD
		{"Nguy\u1ec5n", "Nguy\u1ec5n", "nguye\u0302\u0303n"}, // ễ: two marks
		{"Straße", "Straße", "strasse"},
		{"Асе", "Асе", "ace"},        // all Cyrillic: accepted, but keyed as the Latin look-alike
		{"Ann Анна", "Ann Анна", ""}, // keys of other scripts: TR39's skeletons, not checked here
		{"Ελένη", "Ελένη", ""},
		{"太郎ちゃん", "太郎ちゃん", ""}, // Han and Hiragana
		{"김민준", "김민준", ""},
		{"Taro太郎", "Taro太郎", "taro太郎"}, // Latin with Han
		{"علي", "علي", ""},
		{"علي1", "علي1", ""},
		{"abc", "abc", "abc"},
		{strings.Repeat("x", 20), strings.Repeat("x", 20), strings.Repeat("x", 20)},
		{"123", "123", "l23"},
	} {
		handle, key, err := CheckHandle(tc.raw)
		require.NoError(t, err, "%q", tc.raw)
		assert.Equal(t, tc.handle, handle, "handle of %q", tc.raw)
		assert.NotEmpty(t, key, "key of %q", tc.raw)
		if tc.key != "" {
			assert.Equal(t, tc.key, key, "key of %q", tc.raw)
		}
	}
}

func TestCheckHandleCollisions(t *testing.T) {
	keyOf := func(raw string) string {
		t.Helper()
		_, key, err := CheckHandle(raw)
		require.NoError(t, err, "%q", raw)
		return key
	}
	for _, group := range [][]string{
		{"Ann", "ann", "ANN", "aNn"},
		{"Ace", "Асе", "АСЕ"}, // Latin, Cyrillic
		{"Kevin_rn", "Kevin_m", "KEVIN_rn"},
		{"Zo\u00eb", "Zoe\u0308", "ZOË"},
		{"B0b", "BOB", "bob"}, // the skeleton maps 0 to O, folded again to o
		{"Ann1", "Annl", "ANNL"},
		{"Kevin", "Ｋｅｖｉｎ"},
		{"Straße", "STRASSE"},
	} {
		want := keyOf(group[0])
		for _, raw := range group[1:] {
			assert.Equal(t, want, keyOf(raw), "%q and %q collide", group[0], raw)
		}
	}
	for _, pair := range [][2]string{
		{"Ann_1", "Ann-1"},
		{"Ann 1", "Ann_1"},
		{"Ann Lee", "AnnLee"},
		{"Ann", "Anna"},
		{"Zoe", "Zoë"},
		{"AlI", "All"}, // folding comes first: see CheckHandle
	} {
		assert.NotEqual(t, keyOf(pair[0]), keyOf(pair[1]), "%q and %q are different handles", pair[0], pair[1])
	}
}

// TestHandleKeyOfMixedScripts: a word that mixes scripts is refused, and
// would collide anyway with the look-alike it imitates.
func TestHandleKeyOfMixedScripts(t *testing.T) {
	for _, tc := range []struct{ latin, mixed, scripts string }{
		{"paypal", "pаypal", "Latin and Cyrillic"}, // Cyrillic а
		{"Ann", "Аnn", "Cyrillic and Latin"},       // Cyrillic А
		{"Anna", "Аnnа", "Cyrillic and Latin"},
	} {
		assert.Equal(t, handleKey(tc.latin), handleKey(tc.mixed), "%q and %q", tc.latin, tc.mixed)
		_, _, err := CheckHandle(tc.mixed)
		var he *HandleError
		require.ErrorAs(t, err, &he, "%q", tc.mixed)
		assert.Equal(t, fmt.Sprintf("%q mixes %s letters: write each word of a handle in one script", tc.mixed, tc.scripts), he.Msg)
	}
}

func TestCheckHandleRefuses(t *testing.T) {
	for _, tc := range []struct{ raw, msg string }{
		{"", "a handle cannot be empty"},
		{"ab", "a handle needs at least 3 characters (this one has 2)"},
		{"Zoe\u0308", ""}, // 4 runes raw, 3 shown: accepted
		{strings.Repeat("a", 21), "a handle can have at most 20 characters (this one has 21)"},
		{"Ann Lee Smith Jones Jr", "a handle can have at most 20 characters (this one has 22)"},
		{strings.Repeat("a", 300), "a handle can have at most 20 characters"},
		{"Ann\xff", "a handle must be valid UTF-8 text"},
		{"Ann\u2028", "a handle cannot contain line or paragraph separators (U+2028)"},
		{"Ann\u2029Lee", "a handle cannot contain line or paragraph separators (U+2029)"},
		{"Ann\n", "a handle cannot contain control characters (U+000A)"},
		{"Ann\tLee", "a handle cannot contain control characters (U+0009)"},
		{"Ann\x00", "a handle cannot contain control characters (U+0000)"},
		{"Ann\u0085", "a handle cannot contain control characters (U+0085)"},
		{"Ann\u202e", "a handle cannot contain text direction controls (U+202E)"},
		{"\u202aAnn", "a handle cannot contain text direction controls (U+202A)"},
		{"Ann\u2066x\u2069", "a handle cannot contain text direction controls (U+2066)"},
		{"Ann\u200f", "a handle cannot contain text direction controls (U+200F)"},
		{"Ann\u061c", "a handle cannot contain text direction controls (U+061C)"},
		{"\u3164", "a handle cannot contain invisible characters (U+3164)"},
		{"Ann\u3164", "a handle cannot contain invisible characters (U+3164)"},
		{"A\u200bnn", "a handle cannot contain invisible characters (U+200B)"},
		{"A\u200dnn", "a handle cannot contain invisible characters (U+200D)"},
		{"Ann\u2060", "a handle cannot contain invisible characters (U+2060)"},
		{"\ufeffAnn", "a handle cannot contain invisible characters (U+FEFF)"},
		{"Ann\u115f", "a handle cannot contain invisible characters (U+115F)"},
		{"Ann\u1160", "a handle cannot contain invisible characters (U+1160)"},
		{"Ann\uffa0", "a handle cannot contain invisible characters (U+FFA0)"},
		{"Ann\u180e", "a handle cannot contain invisible characters (U+180E)"},
		{"Ann\u00ad", "a handle cannot contain invisible characters (U+00AD)"},
		{"Ann\ufe0f", "a handle cannot contain invisible characters (U+FE0F)"},
		{"Ann\U000E0100", "a handle cannot contain invisible characters (U+E0100)"},
		{"Ann\U000E0041", "a handle cannot contain invisible characters (U+E0041)"},
		{"Ann\u00a0Lee", "a handle cannot contain spaces other than the plain space (U+00A0)"},
		{"Ann\u3000Lee", "a handle cannot contain spaces other than the plain space (U+3000)"},
		{" Ann", "a handle cannot start with a space"},
		{"Ann ", "a handle cannot end with a space"},
		{"   ", "a handle cannot start with a space"},
		{"Ann  Lee", "a handle cannot have two spaces in a row"},
		{"Ann!", `a handle can hold letters, digits, '_', '-', '.' and spaces, not '!' (U+0021)`},
		{"Ann@x", `a handle can hold letters, digits, '_', '-', '.' and spaces, not '@' (U+0040)`},
		{"a☺b", `a handle can hold letters, digits, '_', '-', '.' and spaces, not '☺' (U+263A)`},
		{"l\u00b7l", `a handle can hold letters, digits, '_', '-', '.' and spaces, not '·' (U+00B7)`},
		{"Ann\ue000", `a handle can hold letters, digits, '_', '-', '.' and spaces, not '\ue000' (U+E000)`},
		{"Ann\u2167", `a handle can hold letters, digits, '_', '-', '.' and spaces, not 'Ⅷ' (U+2167)`},
		{"\u0301Ann", "a word of a handle cannot start with a combining mark (U+0301)"},
		{"Ann \u0301Lee", "a word of a handle cannot start with a combining mark (U+0301)"},
		{"Z" + strings.Repeat("\u0301", 23), "a letter in a handle can carry at most 2 accents or other combining marks"},
		{"Ze\u0301\u0302\u0303", "a letter in a handle can carry at most 2 accents or other combining marks"},
		{"pаypal", `"pаypal" mixes Latin and Cyrillic letters: write each word of a handle in one script`},
		{"Аnnа", `"Аnnа" mixes Cyrillic and Latin letters: write each word of a handle in one script`},
		{"Aλex", `"Aλex" mixes Latin and Greek letters: write each word of a handle in one script`},
		{"Ann\u0966", `"Ann०" mixes Latin and Devanagari letters: write each word of a handle in one script`},
		{"太郎Аnn", `"太郎Аnn" mixes Han, Cyrillic and Latin letters: write each word of a handle in one script`},
		{"Ann\u0661", `"Ann١" mixes Latin and Arabic letters: write each word of a handle in one script`},
		{"علي1\u0661", `"علي1١" mixes right-to-left and left-to-right writing in a way that would display ambiguously`},
		{"___", "a handle needs at least one letter or digit"},
		{"-.-", "a handle needs at least one letter or digit"},
	} {
		handle, key, err := CheckHandle(tc.raw)
		if tc.msg == "" {
			assert.NoError(t, err, "%q", tc.raw)
			continue
		}
		var he *HandleError
		require.ErrorAs(t, err, &he, "%q", tc.raw)
		assert.Equal(t, tc.msg, he.Msg, "%q", tc.raw)
		assert.Equal(t, tc.msg, err.Error(), "%q", tc.raw)
		assert.Empty(t, handle, "%q", tc.raw)
		assert.Empty(t, key, "%q", tc.raw)
	}
}

// FuzzCheckHandle: CheckHandle never panics; an accepted handle is 3 to 20
// characters, checks again to itself and its key (enforcement is
// idempotent), and has a key; a refusal is a *HandleError with a message.
func FuzzCheckHandle(f *testing.F) {
	for _, s := range []string{
		"Ann", "Ann Lee", "Ｋｅｖｉｎ", "Zoe\u0308", "Асе", "pаypal", "太郎ちゃん", "علي", "Ann\u0661",
		"Z" + strings.Repeat("\u0301", 23), "A\u200bnn", "Ann\u202e", "\u3164", "Ann  Lee", "",
		"Nguy\u1ec5n", "İstanbul", "ǅemal", "ﬁx", "B0b", "\u0301Ann",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		handle, key, err := CheckHandle(raw)
		if err != nil {
			var he *HandleError
			if !errors.As(err, &he) || he.Msg == "" {
				t.Fatalf("%q: error %v (%T) is not a *HandleError with a message", raw, err, err)
			}
			if handle != "" || key != "" {
				t.Fatalf("%q refused but returned %q, %q", raw, handle, key)
			}
			return
		}
		if n := utf8.RuneCountInString(handle); n < MinHandleLen || n > MaxHandleLen {
			t.Fatalf("%q accepted as %q of %d characters", raw, handle, n)
		}
		if key == "" {
			t.Fatalf("%q accepted as %q with an empty key", raw, handle)
		}
		h2, k2, err := CheckHandle(handle)
		if err != nil {
			t.Fatalf("%q accepted as %q, which is refused: %v", raw, handle, err)
		}
		if h2 != handle || k2 != key {
			t.Fatalf("%q accepted as %q (key %q), which checks as %q (key %q)", raw, handle, key, h2, k2)
		}
	})
}
