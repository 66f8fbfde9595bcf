package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLoadtestRemoteNeedsNodes: -remote with one node, or a share out of
// range, is a usage error before anything is sent.
func TestLoadtestRemoteNeedsNodes(t *testing.T) {
	for msg, args := range map[string][]string{
		"two nodes": {"-url", "http://127.0.0.1:1", "-remote", "0.5"},
		"0 to 1":    {"-url", "http://127.0.0.1:1,http://127.0.0.1:2", "-remote", "2"},
	} {
		var out, errb bytes.Buffer
		code := run(append([]string{"loadtest", "-duration", "1s"}, args...), nil, &out, &errb)
		assert.Equal(t, exitUsage, code, msg)
		assert.Contains(t, errb.String(), msg)
		assert.Empty(t, out.String())
	}
}
