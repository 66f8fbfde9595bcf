package store

import (
	"fmt"
	"time"
)

// DayLayout is how days are written: YYYY-MM-DD, UTC.
const DayLayout = "2006-01-02"

// Day is the UTC day of t in DayLayout.
func Day(t time.Time) string { return t.UTC().Format(DayLayout) }

// ValidDay checks that day is a real date in DayLayout; the empty string
// passes only when emptyOK.
func ValidDay(day string, emptyOK bool) error {
	if day == "" && emptyOK {
		return nil
	}
	t, err := time.Parse(DayLayout, day)
	if err != nil || t.Format(DayLayout) != day {
		return fmt.Errorf("%w: day %q is not a YYYY-MM-DD date", ErrInvalid, day)
	}
	return nil
}

// StreakOf computes a streak from the distinct days a player finished the
// day's daily on (their results' PlayedDay), in ascending order, none after
// today.
func StreakOf(days []string, today string) Streak {
	var s Streak
	run := 0
	var prev time.Time
	for _, d := range days {
		t, err := time.Parse(DayLayout, d)
		if err != nil {
			continue
		}
		if run > 0 && t.Sub(prev) == 24*time.Hour {
			run++
		} else {
			run = 1
		}
		prev = t
		s.Longest = max(s.Longest, run)
		s.LastDay = d
	}
	if s.LastDay == "" {
		return s
	}
	now, err := time.Parse(DayLayout, today)
	if err == nil && (s.LastDay == today || now.Sub(prev) == 24*time.Hour) {
		s.Current = run
	}
	return s
}

// ValidResultDays checks a result's days (Day, PlayedDay, HeldDay): each
// is a date in DayLayout or empty.
func ValidResultDays(r Result) error {
	for _, day := range []string{r.Day, r.PlayedDay, r.HeldDay} {
		if err := ValidDay(day, true); err != nil {
			return err
		}
	}
	return nil
}

// ValidSpan checks DailiesSolved's days: real dates, from no later than to,
// at most MaxSolvedSpan days.
func ValidSpan(from, to string) error {
	if err := ValidDay(from, false); err != nil {
		return err
	}
	if err := ValidDay(to, false); err != nil {
		return err
	}
	f, _ := time.Parse(DayLayout, from)
	t, _ := time.Parse(DayLayout, to)
	if days := int(t.Sub(f)/(24*time.Hour)) + 1; days < 1 || days > MaxSolvedSpan {
		return fmt.Errorf("%w: %s to %s is not 1 to %d days", ErrInvalid, from, to, MaxSolvedSpan)
	}
	return nil
}
