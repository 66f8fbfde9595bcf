package arenatest

import (
	"net"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// A server whose address was taken before it bound starts on the one
// Rebind gives instead.
func TestStartRebindsATakenAddress(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	asked := 0
	a := Start(t, Options{Listen: taken.Addr().String(), Rebind: func(o *Options) {
		asked++
		o.Listen = FreeAddr(t)
	}})
	assert.Equal(t, 1, asked)
	assert.NotEqual(t, taken.Addr().String(), a.Addr())
	assert.True(t, strings.Contains(strings.Join(a.Logs(), "\n"), "address already in use"), "the first run found it taken")
	assert.Equal(t, 200, a.Status("/livez"))
}
