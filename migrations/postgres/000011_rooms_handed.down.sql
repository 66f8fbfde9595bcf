ALTER TABLE rooms DROP COLUMN handed_epoch;
