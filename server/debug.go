package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// DebugServer serves net/http/pprof on addr (DEBUG_ADDR, checked to be
// loopback by internal/config) on a listener of its own, so that the
// public listener never exposes profiles. Its mux is its own too: nothing
// registered on http.DefaultServeMux leaks onto it. It returns the address
// it listens on and a function that stops it.
func DebugServer(addr string, logger *slog.Logger) (string, func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("DEBUG_ADDR: %w", err)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
		// localhost resolved to an address others can reach.
		ln.Close()
		return "", nil, fmt.Errorf("DEBUG_ADDR: %s is not a loopback address", ln.Addr())
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	// No write timeout: a CPU profile or a trace answers after the seconds
	// it is asked for.
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("debug listener", "err", err)
		}
	}()
	logger.Info("profiles served", "addr", ln.Addr().String())
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx) // an unfinished profile is cut short
	}
	return ln.Addr().String(), stop, nil
}
