package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// connsPerSource is how many sockets one source address carries by
// default: well inside the ephemeral port range.
const connsPerSource = 10_000

// RunLocal is Run in this process, within its open-file limit (raised to
// the hard limit first), with one source address per connsPerSource
// connections unless o.Sources says.
func RunLocal(ctx context.Context, o Options) (Result, error) {
	if o.Mode == ModeArena {
		a, err := RunArena(ctx, ArenaOptions{URL: o.URL, Players: o.Rooms * o.Players, Rate: o.Rate, Ramp: o.Ramp, Duration: o.Duration})
		return Result{Mode: o.Mode, Workers: 1, Arena: &a}, err
	}
	conns := o.Rooms * o.Players
	if o.Sources == 0 {
		o.Sources = (conns + connsPerSource - 1) / connsPerSource
	}
	limit, err := raiseFileLimit()
	if err != nil {
		return Result{}, err
	}
	// Each socket is a file; keep a margin for the rest.
	if need := uint64(conns) + 256; need > limit {
		return Result{}, fmt.Errorf("%d connections need %d open files, over this process's limit of %d: spread them with -procs", conns, need, limit)
	}
	return Run(ctx, o)
}

// raiseFileLimit lifts the open-file soft limit to the hard one and
// returns it.
func raiseFileLimit() (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, fmt.Errorf("open-file limit: %w", err)
	}
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			return 0, fmt.Errorf("open-file limit: raise to %d: %w", lim.Max, err)
		}
	}
	return lim.Cur, nil
}

// RunWorkers runs the load as n processes of this executable, worker i
// with the arguments argsFor gives it for its share of the rooms (which
// must make it print its Result as JSON), and merges their results.
func RunWorkers(ctx context.Context, n, rooms int, argsFor func(i, share int) []string, stderr io.Writer) (Result, error) {
	exe, err := os.Executable()
	if err != nil {
		return Result{}, fmt.Errorf("workers: %w", err)
	}
	parts := make([]Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		share := rooms / n
		if i < rooms%n {
			share++
		}
		wargs := argsFor(i, share)
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[i], errs[i] = runWorker(ctx, exe, wargs, stderr)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return Result{}, fmt.Errorf("worker %d: %w", i, err)
		}
	}
	return Merge(parts), nil
}

// runWorker runs one worker and reads its JSON result. A worker that
// exits 1 with a result (a connection failed) still counts: the merge
// carries the failure.
func runWorker(ctx context.Context, exe string, args []string, stderr io.Writer) (Result, error) {
	cmd := exec.CommandContext(ctx, exe, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, stderr
	runErr := cmd.Run()
	var res Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		if runErr != nil {
			return res, fmt.Errorf("%s: %w", exe, runErr)
		}
		return res, fmt.Errorf("result %q: %w", out.Bytes(), err)
	}
	return res, nil
}
