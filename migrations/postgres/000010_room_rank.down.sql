ALTER TABLE results DROP COLUMN room_rank;
