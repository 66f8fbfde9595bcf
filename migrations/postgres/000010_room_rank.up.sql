-- A result's place in its room (room_rank): a race's finishing order, 1
-- first; 1 for a co-op team and a daily room's one player. Results stored
-- before it was kept take it from their room's results in the order they
-- finished, which is the order the room ranked them.
ALTER TABLE results ADD COLUMN room_rank INTEGER NOT NULL DEFAULT 0 CHECK (room_rank >= 0);
UPDATE results r SET room_rank = CASE WHEN r.mode = 'race' THEN
        (SELECT count(*) FROM results o WHERE o.room_id = r.room_id AND (o.finished_at, o.id) < (r.finished_at, r.id)) + 1
    ELSE 1 END;
