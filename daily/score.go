// Package daily is the puzzle of the day: the keeper that makes and stores
// each day's dailies ahead of their first request (the same puzzle on
// every node, made from the date and level alone), the leaderboard's
// score, which keeps a ranked finish's time, the rule that a player's
// first ranked finish of a day and level is the one that counts, and the
// service the server's daily routes ask (server.Dailies).
//
// Rooms gives the rooms their store (room.Store): store's Adapter with
// the daily's games and the results' rules added. It builds on store,
// room and server's types; nothing below it knows of it.
package daily

import "time"

// ScoreBase turns a daily finish's time into the store's leaderboard
// score, which orders higher first: score = ScoreBase − time in ms. The
// store's leaderboards (their indexes and rank counts) order by score, so
// a ranked daily result keeps its time there, to the millisecond, and
// reads it back as ScoreBase − score. It is below the largest 32-bit
// score, and a time over it (23 days) scores 1.
const ScoreBase = 2_000_000_000

// Score is the leaderboard score of a daily time.
func Score(t time.Duration) int {
	return int(max(1, ScoreBase-t.Milliseconds()))
}

// TimeMS is the time in ms a leaderboard score stands for.
func TimeMS(score int) int64 { return int64(ScoreBase - score) }
