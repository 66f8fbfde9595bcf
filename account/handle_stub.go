package account

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// CheckHandle is a stand-in for the handle checker (handle.go), until it
// lands: it trims the handle, allows 3 to 24 ASCII letters, digits, '_'
// and '-', and keys it by its lower case with the digits that look like
// letters folded into them.
func CheckHandle(raw string) (handle, key string, err error) {
	handle = strings.TrimSpace(raw)
	if n := utf8.RuneCountInString(handle); n < 3 || n > 24 {
		return "", "", errors.New("a handle has 3 to 24 characters")
	}
	if strings.Trim(handle, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
		return "", "", errors.New("a handle has letters, digits, '_' and '-' only")
	}
	key = strings.NewReplacer("0", "o", "1", "l", "i", "l", "_", "-").Replace(strings.ToLower(handle))
	return handle, key, nil
}
