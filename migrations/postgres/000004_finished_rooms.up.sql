-- The finished rooms by their finish time, for the event retention: the
-- events of rooms that finished long enough ago are deleted in batches,
-- oldest first.
CREATE INDEX rooms_finished ON rooms (finished_at) WHERE state = 'finished';
