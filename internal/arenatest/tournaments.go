package arenatest

import (
	"fmt"
	"time"
)

// Tournaments is a TOURNAMENTS setting whose easy tournament is running
// now and runs for at least another hour, for the tests that play one: a
// fixed setting such as 2h/easy/2h ends its tournament at every even hour,
// and a test running then saw its joins refused as the tournament over.
func Tournaments() string { return tournamentsAt(time.Now()) }

// tournamentsAt is Tournaments at now: the first of the tournaments every
// 120, 121 ... 240 minutes, each lasting as long as its period (so that
// one always runs), that has an hour left at now. Periods a minute apart
// start at different times, so one of them has just started; any fixed
// set of whole hours shares a boundary now and then (2h and 3h every 6h).
// A recurring tournament starts at each multiple of its period
// (tournament.Recurring.Next, which the test holds this to; this package
// cannot import it, as the server's tests import this one).
func tournamentsAt(now time.Time) string {
	best, most := 0, time.Duration(0)
	for m := 120; m <= 240; m++ {
		every := time.Duration(m) * time.Minute
		if left := now.UTC().Truncate(every).Add(every).Sub(now); left > most {
			best, most = m, left
			if left >= time.Hour {
				break
			}
		}
	}
	return fmt.Sprintf("%dm/easy/%dm", best, best)
}
