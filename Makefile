# Sudoku Arena. `make run` serves with the embedded store; `make test` runs
# the whole suite. See README.md.

GO            ?= go
# The engine's triad solver is written with Go's experimental SIMD package
# (simd/archsimd, amd64): built without it, the band solver counts every
# puzzle alone (engine/solver_triad_none.go), as on other processors.
export GOEXPERIMENT ?= simd
STATICCHECK   ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
BIN           := bin/arena
# The browser tests and the process tests first: they are the longest, so
# `go test` builds and starts them before the rest (it runs packages in the
# order they are named).
PKGS          := ./e2e ./cmd/arena ./...
# The whole suite must stay under ten minutes on a 2-core machine.
TEST_TIMEOUT  ?= 15m
BENCH_TIME    ?= 1s

.PHONY: all build run test test-short e2e bench loadtest lighthouse fuzz lint fmt vet staticcheck clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/arena

run: build
	./$(BIN) serve

# The store tests start a throwaway PostgreSQL from the machine's binaries;
# scripts/ensure-postgres installs Debian's package when they are missing.
# The zero-allocation tests skip under -race (sync.Pool drops items on
# purpose there), and the stack-size tests are not built with it (its
# instrumentation makes frames larger), so a short second pass without it
# runs them. It runs the whole engine too: its loops of pure computation
# take one case in four under -race (ten times slower there), every case
# without it, and without the SIMD experiment, so that the portable band
# solver is tested alone as well; the third pass runs the engine's
# zero-allocation tests with the experiment, where CountSolutions is the
# triad solver's.
test:
	./scripts/ensure-postgres
	$(GO) test -race -timeout $(TEST_TIMEOUT) -count=1 $(PKGS)
	GOEXPERIMENT= $(GO) test -count=1 ./engine
	$(GO) test -count=1 -run 'Alloc|Stack' ./engine ./protocol ./room ./server ./internal/ws

# The browser tests alone (they are part of `make test` too): a real arena
# serve and Debian's headless Chromium. Without Chromium they skip, unless
# E2E_REQUIRED=1; screenshots go to e2e/screenshots/. TestAccessibility
# alone takes a minute and a half on a busy 2-core machine (axe over every
# page in four looks, three browsers at once).
e2e:
	$(GO) test -count=1 -timeout 10m ./e2e

test-short:
	./scripts/ensure-postgres
	$(GO) test -short -count=1 $(PKGS)

bench: build
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCH_TIME) -cpu 1 ./engine
	./$(BIN) bench -t 3 engine/testdata/17-clue.txt engine/testdata/magictour-top1465.txt engine/testdata/serg-benchmark.txt
	$(GO) test -run '^$$' -bench Broadcast -benchtime 2000x ./server

# A bounded load (LOAD_ROOMS rooms of 4 players, 0.5 moves a player a
# second, for LOAD_DURATION) against a fresh local server on SQLite (or on
# a throwaway PostgreSQL with LOAD_STORE=postgres) with the per-address
# limits off; see docs/performance.md.
loadtest: build
	./scripts/loadtest

# Lighthouse's scores of home, a room and the lab, phone and laptop, on a
# fresh local server; installs a pinned Lighthouse with npm outside the
# repository the first time (not part of `make test`; see
# docs/performance.md).
lighthouse: build
	./scripts/lighthouse

# Each fuzz target for FUZZTIME (go test runs one -fuzz target at a time).
FUZZTIME ?= 30s
fuzz:
	$(GO) test ./engine -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./engine -run '^$$' -fuzz '^FuzzSolve$$' -fuzztime $(FUZZTIME)
	$(GO) test ./engine -run '^$$' -fuzz '^FuzzIsomorphUnmarshalText$$' -fuzztime $(FUZZTIME)
	$(GO) test ./account -run '^$$' -fuzz '^FuzzCheckHandle$$' -fuzztime $(FUZZTIME)
	$(GO) test ./protocol -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME)
	$(GO) test ./server -run '^$$' -fuzz '^FuzzCreateRoom$$' -fuzztime $(FUZZTIME)
	$(GO) test ./server -run '^$$' -fuzz '^FuzzGetRoom$$' -fuzztime $(FUZZTIME)
	$(GO) test ./server -run '^$$' -fuzz '^FuzzLabSolve$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/loadtest -run '^$$' -fuzz '^FuzzScanFlat$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/ws -run '^$$' -fuzz '^FuzzTake$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/ws -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./store -run '^$$' -fuzz '^FuzzEventRows$$' -fuzztime $(FUZZTIME)
	$(GO) test ./store -run '^$$' -fuzz '^FuzzEventPage$$' -fuzztime $(FUZZTIME)

lint: fmt vet staticcheck

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "not gofmt-formatted:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

staticcheck:
	$(GO) run $(STATICCHECK) $(PKGS)

clean:
	rm -rf bin
