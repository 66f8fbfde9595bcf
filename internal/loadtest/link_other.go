//go:build !linux

package loadtest

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/url"
)

// epollSupported: this system has no epoll client; players use the
// library's.
const epollSupported = false

type loop struct{}

func newLoop(*slog.Logger) (*loop, error) { return nil, errors.New("the epoll client is Linux's") }

func (*loop) stop() {}

func dialEpoll(context.Context, *loop, *net.Dialer, *url.URL, string, receiver) (link, error) {
	return nil, errors.New("the epoll client is Linux's")
}
