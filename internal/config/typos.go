package config

import (
	"fmt"
	"slices"
	"strings"
)

// Misspelled is what a start says about the environment's variables that
// look like a setting mistyped: written as settings are (capitals, digits
// and '_'), not a setting, and within a small edit distance of one (2, or
// 1 for a name of under 8 characters, so that short names the system sets,
// such as PATH or HOME, are never taken for one). environ is os.Environ's
// KEY=VALUE list. Each line names the variable and the setting it is
// nearest to, in the order of the names; a mistyped variable is not an
// error, since the environment holds many that are none of the server's.
func Misspelled(environ []string) []string {
	settings := Settings()
	var names []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if settingLike(name) && !slices.ContainsFunc(settings, func(s Setting) bool { return s.Name == name }) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	var lines []string
	for _, name := range names {
		best, bestDist := "", 0
		for _, s := range settings {
			limit := 2
			if len(s.Name) < 8 {
				limit = 1
			}
			if d := editDistance(name, s.Name); d <= limit && (best == "" || d < bestDist) {
				best, bestDist = s.Name, d
			}
		}
		if best != "" {
			lines = append(lines, fmt.Sprintf("%s is not a setting; did you mean %s?", name, best))
		}
	}
	return lines
}

// settingLike reports whether name is written as the settings are: at
// least 4 capitals, digits or '_', starting with a capital.
func settingLike(name string) bool {
	if len(name) < 4 || name[0] < 'A' || name[0] > 'Z' {
		return false
	}
	return strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == ""
}

// editDistance is the optimal string alignment distance of a and b: the
// insertions, deletions, substitutions and swaps of neighbours that turn
// one into the other, each counted once.
func editDistance(a, b string) int {
	// d[i][j] is the distance of a[:i] and b[:j].
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
