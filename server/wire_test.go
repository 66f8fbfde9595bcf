package server_test

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sudoku-arena/arena/internal/ws"
	"github.com/sudoku-arena/arena/protocol"
)

// wire is a client that writes a WebSocket's bytes itself, to send what
// a library would not: an unmasked frame, a close of its own making.
type wire struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
}

func dialWire(t *testing.T, e *env) *wire {
	t.Helper()
	nc, err := net.Dial("tcp", strings.TrimPrefix(e.http.URL, "http://"))
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close() })
	require.NoError(t, nc.SetDeadline(time.Now().Add(5*time.Second)))
	_, err = nc.Write([]byte("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"))
	require.NoError(t, err)
	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusSwitchingProtocols, resp.StatusCode)
	return &wire{t: t, nc: nc, br: br}
}

func (w *wire) send(b []byte) {
	_, err := w.nc.Write(b)
	require.NoError(w.t, err)
}

// closeFrame reads frames until the server's close, and returns its code
// and reason.
func (w *wire) closeFrame() (int, string) {
	w.t.Helper()
	var b []byte
	for {
		f, size, err := ws.Parse(b, 1<<20, false)
		require.NoError(w.t, err)
		if size == 0 {
			p := make([]byte, 512)
			n, err := w.br.Read(p)
			require.NoError(w.t, err, "the server's close frame")
			b = append(b, p[:n]...)
			continue
		}
		b = b[size:]
		if f.Op == ws.OpClose {
			code, reason, err := ws.CheckClose(f.Payload)
			require.NoError(w.t, err)
			return int(code), reason
		}
	}
}

// A frame that breaks RFC 6455 closes the connection with 1002 and a
// reason; a client's close is answered with its code and reason; a
// message over the limit closes with 1009 (docs/protocol.md, "Close
// codes").
func TestTheWireIsKeptToRFC6455(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := [4]byte{1, 2, 3, 4}

	w := dialWire(t, e)
	w.send([]byte{0x81, 2, '{', '}'}) // unmasked
	code, reason := w.closeFrame()
	assert.Equal(t, int(protocol.CloseProtocolError), code)
	assert.Contains(t, reason, "masked")

	// A 64-bit length with its top bit set is a broken frame, not a big
	// one: 1002, and the socket closed at once.
	w = dialWire(t, e)
	start := time.Now()
	w.send([]byte{0x81, 0x80 | 127, 0x80, 0, 0, 0, 0, 0, 0, 5, key[0], key[1], key[2], key[3]})
	code, reason = w.closeFrame()
	assert.Equal(t, int(protocol.CloseProtocolError), code)
	assert.Contains(t, reason, "top bit")
	_, err := w.br.ReadByte()
	assert.ErrorIs(t, err, io.EOF, "the socket is closed")
	assert.Less(t, time.Since(start), 2*time.Second, "at once, not after the close handshake's wait")

	w = dialWire(t, e)
	w.send(ws.AppendMasked(nil, ws.OpClose, append(binary.BigEndian.AppendUint16(nil, 4000), "bye"...), key))
	code, reason = w.closeFrame()
	assert.Equal(t, 4000, code, "the client's close is answered with its code")
	assert.Equal(t, "bye", reason)

	w = dialWire(t, e)
	w.send(ws.AppendMasked(nil, ws.OpText, []byte(strings.Repeat("x", 4097)), key))
	code, _ = w.closeFrame()
	assert.Equal(t, int(protocol.CloseTooBig), code)
	w.send(ws.AppendMasked(nil, ws.OpClose, binary.BigEndian.AppendUint16(nil, 1000), key))
	require.NoError(t, w.nc.SetReadDeadline(time.Now().Add(time.Second)))
	_, err = w.br.ReadByte()
	assert.ErrorIs(t, err, io.EOF, "the socket is closed after the client's close")
}
