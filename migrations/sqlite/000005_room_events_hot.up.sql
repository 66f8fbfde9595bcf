-- New events land here first, in arrival order within one of a few parts
-- (the top bits of id, chosen by room), with no index by room: a batch of
-- events from hundreds of rooms fills a few sequential pages instead of
-- dirtying one page of room_events per room. The store moves a part's
-- events into room_events, sorted by room, every few seconds, so each
-- room's page there is written once for many events. A retried append
-- may leave an event here twice, or here and in room_events: readers take
-- each (room_id, seq) once. See store/sqlite/events.go.
CREATE TABLE room_events_hot (
    id        INTEGER PRIMARY KEY,
    room_id   TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    seq       INTEGER NOT NULL,
    type      TEXT NOT NULL,
    player_id TEXT NOT NULL DEFAULT '',
    data      TEXT NOT NULL DEFAULT '{}',
    at        INTEGER NOT NULL
) STRICT;
