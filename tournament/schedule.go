package tournament

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sudoku-arena/arena/room"
)

// Recurring is a tournament scheduled again and again: one of the level,
// lasting Duration, starting at each multiple of Every (UTC, from the
// Unix epoch: on the hour for 1h, at midnight for 24h).
type Recurring struct {
	Every    time.Duration
	Level    string
	Duration time.Duration
}

// String is the recurring tournament as the TOURNAMENTS setting writes it.
func (r Recurring) String() string {
	return fmt.Sprintf("%s/%s/%s", short(r.Every), r.Level, short(r.Duration))
}

// short writes d as time.Duration.String does, without the zero units it
// ends with: 20m, 1h, 1h30m.
func short(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// ParseSchedule reads the TOURNAMENTS setting: comma-separated
// EVERY/LEVEL/DURATION, such as "1h/easy/20m,24h/hard/1h" (an hourly
// 20-minute easy arena and a daily hour-long hard one); "" is none. A
// duration must be from a minute to EVERY, EVERY at most a week.
func ParseSchedule(v string) ([]Recurring, error) {
	var out []Recurring
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		f := strings.Split(part, "/")
		if len(f) != 3 {
			return nil, fmt.Errorf("%q: want EVERY/LEVEL/DURATION such as 1h/easy/20m", part)
		}
		every, err1 := time.ParseDuration(f[0])
		dur, err2 := time.ParseDuration(f[2])
		switch {
		case err1 != nil || every < time.Minute || every > 7*24*time.Hour:
			return nil, fmt.Errorf("%q: EVERY must be a duration from 1m to 168h", part)
		case !slices.Contains(room.Levels, f[1]):
			return nil, fmt.Errorf("%q: LEVEL must be one of %s", part, strings.Join(room.Levels, ", "))
		case err2 != nil || dur < time.Minute || dur > every:
			return nil, fmt.Errorf("%q: DURATION must be from 1m to EVERY", part)
		}
		out = append(out, Recurring{Every: every, Level: f[1], Duration: dur})
	}
	return out, nil
}

// FormatSchedule writes the schedule as ParseSchedule reads it.
func FormatSchedule(rs []Recurring) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// Next is the recurring tournament that runs at now, or else the next to
// start.
func (r Recurring) Next(now time.Time) Spec {
	start := now.UTC().Truncate(r.Every)
	if !now.Before(start.Add(r.Duration)) {
		start = start.Add(r.Every)
	}
	name := fmt.Sprintf("%s %s arena", strings.ToUpper(r.Level[:1])+r.Level[1:], short(r.Duration))
	return Spec{ID: fmt.Sprintf("%s-%s-%s", r.Level, short(r.Duration), start.Format("20060102t1504")),
		Name: name, Level: r.Level, StartsAt: start, Duration: r.Duration}
}

// KeepEvery is how often Keep looks at the schedule and the store.
const KeepEvery = time.Minute

// Keep runs the hub's tournaments until ctx is done: each minute a Tick,
// the first a minute from now.
func (h *Hub) Keep(ctx context.Context, schedule []Recurring) {
	timer := h.clock.NewTimer(h.clock.Now().Add(KeepEvery))
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-timer.C():
			h.Tick(ctx, schedule)
			timer.Reset(now.Add(KeepEvery))
		}
	}
}

// Tick is one of Keep's passes: the schedule's current or next
// tournaments, and the store's not running here yet. A server runs one
// before it serves, so that its first answers list them.
func (h *Hub) Tick(ctx context.Context, schedule []Recurring) {
	now := h.clock.Now()
	for _, r := range schedule {
		if err := h.Schedule(ctx, r.Next(now)); err != nil {
			h.log.Warn("tournament: not scheduled", "schedule", r.String(), "err", err)
		}
	}
	if _, err := h.Restore(ctx); err != nil {
		h.log.Warn("tournaments: not restored", "err", err)
	}
}
