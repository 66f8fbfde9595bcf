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

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The listeners of their own, apart from the public one (LISTEN_ADDR): the
// profiles (DEBUG_ADDR) and the metrics (METRICS_ADDR). What they show is
// the server's insides, for its operators: the public listener serves
// neither, and each has a mux of its own, so nothing registered on
// http.DefaultServeMux leaks onto one.

// DebugServer serves net/http/pprof on addr (DEBUG_ADDR, checked to be
// loopback by internal/config) on a listener of its own. It returns the
// address it listens on and a function that stops it.
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
	return serveApart(ln, hs, "profiles served", logger), stopper(hs), nil
}

// MetricsHandler is the server's metrics in Prometheus' text format: what
// MetricsServer serves at /metrics.
func (s *Server) MetricsHandler() http.Handler {
	return promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})
}

// MetricsServer serves the metrics at GET /metrics on addr (METRICS_ADDR)
// on a listener of its own, for Prometheus to scrape; any other path is
// 404. It returns the address it listens on and a function that stops it.
func (s *Server) MetricsServer(addr string) (string, func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("METRICS_ADDR: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", s.MetricsHandler())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, WriteTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
	return serveApart(ln, hs, "metrics served", s.log), stopper(hs), nil
}

// ServeApart starts the listeners of their own that the configuration
// asks for (DebugAddr, MetricsAddr), and returns a function that stops
// them. A listener that cannot start stops those started before it.
func (s *Server) ServeApart() (stop func(), err error) {
	var stops []func()
	stop = func() {
		for _, f := range stops {
			f()
		}
	}
	if s.cfg.DebugAddr != "" {
		_, f, err := DebugServer(s.cfg.DebugAddr, s.log)
		if err != nil {
			return nil, err
		}
		stops = append(stops, f)
	}
	if s.cfg.MetricsAddr != "" {
		_, f, err := s.MetricsServer(s.cfg.MetricsAddr)
		if err != nil {
			stop()
			return nil, err
		}
		stops = append(stops, f)
	}
	return stop, nil
}

// serveApart serves hs on ln in the background, logs what it serves and
// where (the harness reads the address from the log), and returns the
// address.
func serveApart(ln net.Listener, hs *http.Server, what string, logger *slog.Logger) string {
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error(what, "err", err)
		}
	}()
	logger.Info(what, "addr", ln.Addr().String())
	return ln.Addr().String()
}

// stopper stops hs, giving what it is answering a second: an unfinished
// profile is cut short.
func stopper(hs *http.Server) func() {
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
	}
}
