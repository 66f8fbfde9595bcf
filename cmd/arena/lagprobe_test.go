package main

import (
	"sync"
	"time"
)

// lagProbe measures how late the test process's own timers fire: on a
// machine busy with other tests, the moment a client notes a move's
// acknowledgement trails the moment the node sent it, and a node's batch
// write trails its acknowledgements (docs/operations.md: what waits in
// the event log's queue while the database lags is at risk too), each by
// about as much as the machine keeps a runnable process waiting.
type lagProbe struct {
	mu    sync.Mutex
	late  []lagSample
	stop  chan struct{}
	ended chan struct{}
}

type lagSample struct {
	at  time.Time
	lag time.Duration
}

// lagTick is the probe's period; lateness below lagNoise is not kept.
const (
	lagTick  = 10 * time.Millisecond
	lagNoise = 20 * time.Millisecond
)

func startLagProbe() *lagProbe {
	p := &lagProbe{stop: make(chan struct{}), ended: make(chan struct{})}
	go func() {
		defer close(p.ended)
		for {
			want := time.Now().Add(lagTick)
			select {
			case <-p.stop:
				return
			case <-time.After(lagTick):
			}
			if lag := time.Since(want); lag >= lagNoise {
				p.mu.Lock()
				p.late = append(p.late, lagSample{at: want, lag: lag})
				p.mu.Unlock()
			}
		}
	}()
	return p
}

// worst is the latest a tick came within span of at, after the probe is
// stopped.
func (p *lagProbe) worst(at time.Time, span time.Duration) time.Duration {
	close(p.stop)
	<-p.ended
	var worst time.Duration
	for _, s := range p.late {
		if s.at.After(at.Add(-span)) && s.at.Before(at.Add(span)) {
			worst = max(worst, s.lag)
		}
	}
	return worst
}
