// Package web is the browser client, embedded in the binary: plain ES
// modules and CSS, no build step. FS serves them with index.html at the
// root; the server also answers share links (/r/ID) with index.html.
package web

import (
	"embed"
	"io/fs"
)

//go:embed static
var files embed.FS

// FS is the client's files.
func FS() fs.FS {
	sub, err := fs.Sub(files, "static")
	if err != nil {
		panic(err) // the embedded tree always has static/
	}
	return sub
}
