module github.com/sudoku-arena/arena

go 1.26
