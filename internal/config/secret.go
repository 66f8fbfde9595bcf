package config

import (
	"errors"
	"strings"
)

// The rule NODE_SECRET's value must pass. The secret keys the MAC every
// relay between nodes carries (server/nodeauth.go): whoever knows it can
// pose as a node, and a node believes the client address a relay vouches
// for, so a guessable secret would let any client past the per-address
// limits. The rule refuses what is plainly guessable, and says how to
// make one that is not:
//   - fewer than secretMin characters;
//   - docker-compose.yml's old placeholder, or any value with "change me"
//     in it (written changeme, change-me, change_me or change me);
//   - fewer than secretDistinct different characters ("aaaa…", "abab…");
//   - one piece repeated ("0123456789abcdef0123456789abcdef");
//   - fewer than secretMin characters left once the common words of
//     weakWords are taken out ("my-secret-password-of-the-nodes-1").
//
// A random value, as `openssl rand -hex 32` writes one, passes all five.
const (
	secretMin      = 32
	secretDistinct = 8
	// composePlaceholder is the value docker-compose.yml gave NODE_SECRET
	// when it was not set, until it stopped giving one.
	composePlaceholder = "change-me-a-secret-of-the-nodes"
	// makeSecret says how to make a good secret, in every refusal.
	makeSecret = ": make one with `openssl rand -hex 32` and give every node the same"
)

// placeholders are the ways "change me" is written in a value left as an
// example had it.
var placeholders = []string{"changeme", "change-me", "change_me", "change me"}

// weakWords are words that do not count towards a secret's length: the
// first words anyone tries.
var weakWords = []string{"secret", "password", "passwd", "example", "default", "sudoku", "arena"}

// checkSecret reports what makes v a weak NODE_SECRET, or nil.
func checkSecret(v string) error {
	lower := strings.ToLower(v)
	if lower == composePlaceholder {
		return errors.New("want a secret of your own, not the placeholder docker-compose.yml once had" + makeSecret)
	}
	for _, p := range placeholders {
		if strings.Contains(lower, p) {
			return errors.New("want a secret of your own, not a placeholder that says to change it" + makeSecret)
		}
	}
	if len(v) < secretMin {
		return errors.New("want at least 32 characters" + makeSecret)
	}
	distinct := map[rune]bool{}
	for _, r := range v {
		distinct[r] = true
	}
	if len(distinct) < secretDistinct {
		return errors.New("want at least 8 different characters, not a few repeated" + makeSecret)
	}
	if repeated(v) {
		return errors.New("want a secret that is not one piece repeated" + makeSecret)
	}
	rest := lower
	for _, w := range weakWords {
		rest = strings.ReplaceAll(rest, w, "")
	}
	if len(rest) < secretMin {
		return errors.New("want at least 32 characters besides common words such as secret and password" + makeSecret)
	}
	return nil
}

// repeated reports whether v is one piece written over and over (the
// last time possibly cut short): "abcabcabcab".
func repeated(v string) bool {
	for n := 1; n <= len(v)/2; n++ {
		if strings.HasPrefix(v, v[n:]) {
			return true
		}
	}
	return false
}
