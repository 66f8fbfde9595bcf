-- A puzzle's Sudoku Explainer rating in tenths (71 is SE 7.1), taken when
-- it was generated; 0 for a puzzle stored before ratings were (the server
-- rates such a puzzle when it is played).
ALTER TABLE puzzles ADD COLUMN se INTEGER NOT NULL DEFAULT 0;
