-- A row of room_events may hold a run of a room's events with consecutive
-- seqs (a move and the mover's progress, logged by one flush of the room):
-- seq is the first one's, last_seq the last one's, at the first one's,
-- and data a JSON array of the events, the k-th (from 0) being seq + k:
-- {"t": type, "p": player_id, "dt": microseconds after at (none: 0),
-- "n": the length of d, "d": the event's data}. A row of one event has
-- last_seq NULL, as every row stored before has. Each row costs an insert
-- into the table and one into its key whatever it holds. Adding the
-- column rewrites nothing.
ALTER TABLE room_events ADD COLUMN last_seq INTEGER;
