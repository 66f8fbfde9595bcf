package account

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mtibben/confusables"
	"golang.org/x/text/cases"
	"golang.org/x/text/secure/bidirule"
	"golang.org/x/text/secure/precis"
	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"
)

// A handle's length in characters (runes of its shown form), spaces
// included.
const (
	MinHandleLen = 3
	MaxHandleLen = 20
)

// maxRawBytes refuses at once input far longer than any handle: a handle of
// MaxHandleLen characters is well under it even written decomposed.
const maxRawBytes = 256

// maxMarks is how many combining marks (accents and the like) one letter
// may carry, counted decomposed: enough for Vietnamese "ễ" and the vowel
// signs of Indic scripts, not for a pile of accents that overflows the line.
const maxMarks = 2

// HandleError says why a handle was refused. Msg is a sentence for the
// player, without the handle's text where that could hide what is wrong.
type HandleError struct {
	Msg string
}

func (e *HandleError) Error() string { return e.Msg }

func refuse(format string, args ...any) (string, string, error) {
	return "", "", &HandleError{Msg: fmt.Sprintf(format, args...)}
}

// CheckHandle returns the handle as it will be shown (PRECIS-enforced) and
// its key: the string two handles collide on when they are equal or
// confusable. Errors are *HandleError with a human message saying what is
// wrong.
//
// A handle is 3 to 20 characters: words of letters, digits (0-9 and those
// of other scripts), '_', '-' and '.', separated by single spaces, with at
// least one letter or digit. Each word is enforced with the PRECIS
// UsernameCasePreserved profile (RFC 8265, which enforces space-separated
// parts of a username one by one): full-width forms become their usual
// width, the text is NFC-normalised, and the Bidi Rule applies. Refused:
// control characters, line and paragraph separators, text direction
// controls, invisible (default-ignorable) characters such as zero-width
// spaces, Hangul fillers, variation selectors and tags, spaces other than
// U+0020, a word starting with a combining mark, a letter with more than 2
// combining marks, and a word that mixes scripts (Unicode TR39's highly
// restrictive level: one script a word, but Latin may go with Han and the
// Japanese kana, with Han and Bopomofo, or with Han and Hangul). Words in
// different scripts are fine.
//
// The key is the TR39 confusables skeleton of the case-folded handle,
// case-folded again (the skeleton maps some characters to capitals: '0' to
// 'O') and NFD-normalised, so "Ann", "ann" and "ANN" collide, as do a
// Cyrillic "Асе" and a Latin "Ace", "Kevin_rn" and "Kevin_m", "B0b" and
// "bob", "Ann1" and "Annl". Spaces, '_', '-' and '.' stay as they are:
// "Ann_1", "Ann-1" and "Ann 1" are three handles. Folding comes first, so
// a capital I and a small L, alike in many fonts, do not collide ("AlI" and
// "All"): any key that made "I" collide with both "i" and "l" would make
// "Ali" and "All" collide too.
func CheckHandle(raw string) (handle, key string, err error) {
	switch {
	case raw == "":
		return refuse("a handle cannot be empty")
	case len(raw) > maxRawBytes:
		return refuse("a handle can have at most %d characters", MaxHandleLen)
	case !utf8.ValidString(raw):
		return refuse("a handle must be valid UTF-8 text")
	}
	for _, r := range raw {
		if what := forbidden(r); what != "" {
			return refuse("a handle cannot contain %s (U+%04X)", what, r)
		}
	}
	switch {
	case strings.HasPrefix(raw, " "):
		return refuse("a handle cannot start with a space")
	case strings.HasSuffix(raw, " "):
		return refuse("a handle cannot end with a space")
	case strings.Contains(raw, "  "):
		return refuse("a handle cannot have two spaces in a row")
	}
	words := strings.Split(raw, " ")
	for i, w := range words {
		if words[i], err = checkWord(w); err != nil {
			return "", "", err
		}
	}
	handle = strings.Join(words, " ")
	switch n := utf8.RuneCountInString(handle); {
	case n < MinHandleLen:
		return refuse("a handle needs at least %d characters (this one has %d)", MinHandleLen, n)
	case n > MaxHandleLen:
		return refuse("a handle can have at most %d characters (this one has %d)", MaxHandleLen, n)
	}
	if strings.IndexFunc(handle, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
		return refuse("a handle needs at least one letter or digit")
	}
	return handle, handleKey(handle), nil
}

// forbidden names the kind of character r is when a handle may not hold it
// anywhere, or returns "".
func forbidden(r rune) string {
	switch {
	case r == '\u2028' || r == '\u2029':
		return "line or paragraph separators"
	case unicode.Is(unicode.Bidi_Control, r):
		return "text direction controls"
	case unicode.IsControl(r):
		return "control characters"
	case unicode.Is(unicode.Cf, r),
		unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r),
		unicode.Is(unicode.Variation_Selector, r):
		return "invisible characters"
	case r != ' ' && unicode.In(r, unicode.Zs):
		return "spaces other than the plain space"
	}
	return ""
}

// checkWord checks one space-free word of a handle and returns it enforced.
func checkWord(w string) (string, error) {
	// What PRECIS will make of w: it maps widths and normalises to NFC,
	// then checks. The characters are checked here first, so that the
	// player learns which one is wrong (PRECIS reports some as a failed
	// Bidi Rule).
	shown := norm.NFC.String(width.Fold.String(w))
	for _, r := range shown {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) && r != '_' && r != '-' && r != '.' {
			return "", &HandleError{Msg: fmt.Sprintf("a handle can hold letters, digits, '_', '-', '.' and spaces, not %q (U+%04X)", r, r)}
		}
	}
	if r, _ := utf8.DecodeRuneInString(shown); unicode.IsMark(r) {
		return "", &HandleError{Msg: fmt.Sprintf("a word of a handle cannot start with a combining mark (U+%04X)", r)}
	}
	marks := 0
	for _, r := range norm.NFD.String(shown) {
		if !unicode.IsMark(r) {
			marks = 0
			continue
		}
		if marks++; marks > maxMarks {
			return "", &HandleError{Msg: fmt.Sprintf("a letter in a handle can carry at most %d accents or other combining marks", maxMarks)}
		}
	}
	if scripts := wordScripts(shown); !scriptsMix(scripts) {
		return "", &HandleError{Msg: fmt.Sprintf("%q mixes %s letters: write each word of a handle in one script", shown, listed(scripts))}
	}
	out, err := precis.UsernameCasePreserved.String(w)
	switch {
	case errors.Is(err, bidirule.ErrInvalid):
		return "", &HandleError{Msg: fmt.Sprintf("%q mixes right-to-left and left-to-right writing in a way that would display ambiguously", shown)}
	case err != nil:
		return "", &HandleError{Msg: fmt.Sprintf("%q is not allowed in a handle (%v)", shown, err)}
	}
	return out, nil
}

// scriptNames are the scripts a letter can belong to, in a fixed order.
var scriptNames = slices.Sorted(maps.Keys(unicode.Scripts))

// wordScripts returns the scripts of w's characters in order of first
// appearance, leaving out Common (digits 0-9, '_', '-', '.') and
// Inherited (most combining marks).
func wordScripts(w string) []string {
	var found []string
	for _, r := range w {
		s := scriptOf(r)
		if s != "" && !slices.Contains(found, s) {
			found = append(found, s)
		}
	}
	return found
}

func scriptOf(r rune) string {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
		return "Latin"
	case r < utf8.RuneSelf, unicode.In(r, unicode.Common, unicode.Inherited):
		return ""
	}
	for _, name := range scriptNames {
		if name != "Common" && name != "Inherited" && unicode.Is(unicode.Scripts[name], r) {
			return name
		}
	}
	return "Unknown"
}

// scriptSets are the mixes of scripts that one word may use, besides a
// single script: Unicode TR39's "highly restrictive" level.
var scriptSets = [][]string{
	{"Latin", "Han", "Hiragana", "Katakana"},
	{"Latin", "Han", "Bopomofo"},
	{"Latin", "Han", "Hangul"},
}

// scriptsMix reports whether one word may use all of scripts.
func scriptsMix(scripts []string) bool {
	if len(scripts) <= 1 {
		return true
	}
	for _, set := range scriptSets {
		if !slices.ContainsFunc(scripts, func(s string) bool { return !slices.Contains(set, s) }) {
			return true
		}
	}
	return false
}

// listed writes names as "A and B" or "A, B and C".
func listed(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// handleKey returns the key of an enforced handle (see CheckHandle).
// Casers keep state, so each call makes its own.
func handleKey(handle string) string {
	folded := cases.Fold().String(handle)
	return norm.NFD.String(cases.Fold().String(confusables.Skeleton(folded)))
}
