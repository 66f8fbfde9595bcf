//go:build goexperiment.jsonv2

package protocol

import (
	"bytes"
	"encoding/json"
	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
)

// Go's own encoding/json/v2, in the codec benchmarks (codec_bench_test.go)
// when built with GOEXPERIMENT=jsonv2.
func init() {
	v1Bytes := jsonv2.JoinOptions(jsontext.EscapeForHTML(true), jsontext.EscapeForJS(true),
		jsontext.AllowInvalidUTF8(true), json.OmitEmptyWithLegacySemantics(true))
	codecDecoders = append(codecDecoders, codecDecoder{"stdv2", func(data []byte) (*Msg, error) {
		var msg Msg
		if err := jsonv2.Unmarshal(data, &msg); err != nil {
			return nil, err
		}
		return asError(checkedMsg(&msg))
	}})
	codecEncoders = append(codecEncoders, codecEncoder{"stdv2", func() func(Event) []byte {
		var buf bytes.Buffer
		buf.Grow(512)
		return func(ev Event) []byte {
			buf.Reset()
			if err := jsonv2.MarshalWrite(&buf, ev, v1Bytes); err != nil {
				panic(err)
			}
			return buf.Bytes()
		}
	}})
}
