// Package engine is pure Sudoku: grids and their parsing, peer-conflict
// checks, a fast bitboard solver that counts solutions, a human-style
// logical solver that grades puzzles and explains hints, a rater on the
// Sudoku Explainer scale (RateSE; the generator calls it when asked for
// an SE range, as each Difficulty does), a seeded puzzle generator, the
// levels players pick (Difficulties), and the isomorphs (relabelled
// digits, moved rows and columns) that give each player their own copy of
// a puzzle.
//
// It imports only the standard library and does no I/O, so every other
// package (rooms, the server, the command line) can trust it and test it as
// plain function calls.
//
// Cells are numbered 0..80 row by row; rows, columns and boxes are numbered
// 0..8 in code and 1..9 in anything a player reads ("r4c7", "box 6").
package engine
