//go:build !linux

package loadtest

import (
	"context"
	"errors"
	"net/url"
)

// leanSockets says whether the load test's own client runs here: it reads
// through epoll, so elsewhere the players' sockets go through
// coder/websocket.
const leanSockets = false

func (r *run) dialLean(context.Context, *url.URL, string, *player) (socket, error) {
	return nil, errors.New("the load test's own client runs on Linux only")
}
