package account

import (
	"crypto/rand"
	"strings"
)

// codeAlphabet is the letters and digits of sign-in and recovery codes:
// none that reads as another (no I, O, 0 or 1), 32 of them, so a code of
// 12 carries 60 random bits.
const codeAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// codeLen is how many characters a code has, without its dashes.
const codeLen = 12

// newCode is a random code written in groups of four: ABCD-EFGH-JKLM.
func newCode() string {
	var b [codeLen]byte
	_, _ = rand.Read(b[:])
	var sb strings.Builder
	for i, c := range b {
		if i > 0 && i%4 == 0 {
			sb.WriteByte('-')
		}
		sb.WriteByte(codeAlphabet[c&31])
	}
	return sb.String()
}

// normalCode is a code as typed, in capitals, without its dashes and
// spaces: what is hashed.
func normalCode(typed string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == ' ' {
			return -1
		}
		return r
	}, strings.ToUpper(strings.TrimSpace(typed)))
}

// recoveryCodes is an account's RecoveryCodes new recovery codes, all
// different, written in small letters (xxxx-xxxx-xxxx), and their hashes.
func recoveryCodes() (codes []string, hashes [][]byte) {
	seen := map[string]bool{}
	for len(codes) < RecoveryCodes {
		c := newCode()
		if seen[c] {
			continue
		}
		seen[c] = true
		codes = append(codes, strings.ToLower(c))
		hashes = append(hashes, hash(normalCode(c)))
	}
	return codes, hashes
}
