package loadtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParsePIDs(t *testing.T) {
	for raw, want := range map[string][]int{"": nil, "0": nil, "12": {12}, "12, 13,14": {12, 13, 14}} {
		got, err := ParsePIDs(raw)
		require.NoError(t, err, raw)
		assert.Equal(t, want, got, raw)
	}
	for _, bad := range []string{"x", "12,", "-3", "1,0"} {
		_, err := ParsePIDs(bad)
		assert.ErrorContains(t, err, "-pid", bad)
	}
}

func TestParseMetrics(t *testing.T) {
	for raw, want := range map[string][]string{
		"":                                  nil,
		"http://127.0.0.1:9090":             {"http://127.0.0.1:9090/metrics"},
		"http://a:9090/metrics, http://b:1": {"http://a:9090/metrics", "http://b:1/metrics"},
	} {
		got, err := ParseMetrics(raw)
		require.NoError(t, err, raw)
		var urls []string
		for _, u := range got {
			urls = append(urls, u.String())
		}
		assert.Equal(t, want, urls, raw)
	}
	for _, bad := range []string{"127.0.0.1:9090", "http://", "http://a:1,", "ftp://a:1"} {
		_, err := ParseMetrics(bad)
		assert.ErrorContains(t, err, "-metrics", bad)
	}
}
