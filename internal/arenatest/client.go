package arenatest

import (
	"io"
	"net/http"
	"time"
)

// HTTPTimeout bounds each request a test makes through Client: a server
// that never answers (paused, wedged) fails the request, and the test with
// it, rather than hanging the suite until its timeout hides the failure.
const HTTPTimeout = 30 * time.Second

// Client is the HTTP client of tests and harnesses: http.DefaultClient's
// behaviour with a timeout. Use it, or Get and Post, in place of
// http.DefaultClient, http.Get and http.Post, which never give up.
var Client = &http.Client{Timeout: HTTPTimeout}

// Get is http.Get through Client.
func Get(url string) (*http.Response, error) { return Client.Get(url) }

// Post is http.Post through Client.
func Post(url, contentType string, body io.Reader) (*http.Response, error) {
	return Client.Post(url, contentType, body)
}

// Head is http.Head through Client.
func Head(url string) (*http.Response, error) { return Client.Head(url) }
