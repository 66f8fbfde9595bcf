package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
)

// staticFiles serves the web client from memory. Everything a response
// needs (the bytes, their gzip form, the ETags, the headers) is computed
// once at start, so serving a file is a map lookup: the client is small
// (a few hundred kilobytes at most) and embedded, so it never changes while
// the process runs.
type staticFiles struct {
	files map[string]*staticFile // by path without the leading slash
	index *staticFile
}

// staticFile is one file ready to serve.
type staticFile struct {
	body  []byte
	gz    []byte // nil when gzip would not make it smaller
	etag  string // strong ETag of body
	gzTag string // strong ETag of gz: another representation, another tag
	ctype string
}

// contentTypes are the types of the client's files, fixed here rather than
// taken from the machine's mime tables, which differ between systems (some
// still say application/javascript or text/plain for .js).
var contentTypes = map[string]string{
	".html":        "text/html; charset=utf-8",
	".js":          "text/javascript; charset=utf-8",
	".mjs":         "text/javascript; charset=utf-8",
	".css":         "text/css; charset=utf-8",
	".json":        "application/json",
	".webmanifest": "application/manifest+json",
	".svg":         "image/svg+xml",
	".png":         "image/png",
	".ico":         "image/x-icon",
	".txt":         "text/plain; charset=utf-8",
	".woff2":       "font/woff2",
}

// compressible says whether a type is worth gzipping: text is, images and
// fonts other than SVG are compressed already.
func compressible(ctype string) bool {
	return strings.HasPrefix(ctype, "text/") || strings.HasPrefix(ctype, "application/") ||
		strings.HasPrefix(ctype, "image/svg")
}

// newStatic reads every file of fsys, which must hold index.html.
func newStatic(fsys fs.FS) (*staticFiles, error) {
	sf := &staticFiles{files: map[string]*staticFile{}}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		f, err := prepareStatic(name, body)
		if err != nil {
			return err
		}
		sf.files[name] = f
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("server: read the web client: %w", err)
	}
	sf.index = sf.files["index.html"]
	if sf.index == nil {
		return nil, fmt.Errorf("server: read the web client: no index.html")
	}
	if err := sf.stampWorker(); err != nil {
		return nil, fmt.Errorf("server: read the web client: %w", err)
	}
	return sf, nil
}

// The service worker's placeholders, which stampWorker fills in.
const (
	serviceWorker = "sw.js"
	buildMark     = "'__BUILD__'"
	shellMark     = "['__SHELL__']"
)

// stampWorker writes into the client's service worker (sw.js, when there
// is one) the release it belongs to and the files of its app shell: the
// build, a hash of every other file's name and content, names the
// worker's cache, and a release that changes any file changes the
// worker's bytes, which is how a browser learns that a new worker (and a
// new cache, the old one deleted) replaces the old. The shell is "/" (the
// page, whatever route opened it) and every other file by its path; index.html
// goes as "/", and the worker does not cache itself.
func (sf *staticFiles) stampWorker() error {
	sw := sf.files[serviceWorker]
	if sw == nil {
		return nil
	}
	names := make([]string, 0, len(sf.files))
	for name := range sf.files {
		if name != serviceWorker {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	h := sha256.New()
	shell := []string{"/"}
	for _, name := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(sf.files[name].body))
		h.Write(sf.files[name].body)
		if name != "index.html" {
			shell = append(shell, "/"+name)
		}
	}
	build := base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:12])
	list, err := json.Marshal(shell)
	if err != nil {
		return fmt.Errorf("%s: %w", serviceWorker, err)
	}
	body := string(sw.body)
	if !strings.Contains(body, buildMark) || !strings.Contains(body, shellMark) {
		return fmt.Errorf("%s: no %s or %s to fill in", serviceWorker, buildMark, shellMark)
	}
	body = strings.Replace(body, buildMark, "'"+build+"'", 1)
	body = strings.Replace(body, shellMark, string(list), 1)
	f, err := prepareStatic(serviceWorker, []byte(body))
	if err != nil {
		return err
	}
	sf.files[serviceWorker] = f
	return nil
}

// prepareStatic is the file named name with its type, tags and gzip form.
func prepareStatic(name string, body []byte) (*staticFile, error) {
	ext := path.Ext(name)
	ctype, ok := contentTypes[ext]
	if !ok {
		ctype = mime.TypeByExtension(ext)
	}
	if ctype == "" {
		ctype = http.DetectContentType(body)
	}
	sum := sha256.Sum256(body)
	tag := base64.RawURLEncoding.EncodeToString(sum[:16])
	f := &staticFile{body: body, ctype: ctype, etag: `"` + tag + `"`}
	if compressible(ctype) {
		var buf bytes.Buffer
		zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		if err != nil {
			return nil, fmt.Errorf("gzip %s: %w", name, err)
		}
		if _, err := zw.Write(body); err != nil {
			return nil, fmt.Errorf("gzip %s: %w", name, err)
		}
		if err := zw.Close(); err != nil {
			return nil, fmt.Errorf("gzip %s: %w", name, err)
		}
		if buf.Len() < len(body) {
			f.gz = buf.Bytes()
			f.gzTag = `"` + tag + `-gz"`
		}
	}
	return f, nil
}

// ServeHTTP serves the file the path names; "/" is index.html, and a path
// that names no file is 404.
func (sf *staticFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/")
	if name == "" {
		sf.serve(w, r, sf.index)
		return
	}
	f, ok := sf.files[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	sf.serve(w, r, f)
}

// serveIndex answers with index.html, for the share links /r/{id}, which
// the client reads from the address bar.
func (sf *staticFiles) serveIndex(w http.ResponseWriter, r *http.Request) {
	sf.serve(w, r, sf.index)
}

// serve writes f, gzipped when the client accepts it, or 304 when the
// client's copy is current. Cache-Control no-cache makes browsers ask again
// each time, so a new release is picked up at once; the ETag keeps that
// question cheap.
func (sf *staticFiles) serve(w http.ResponseWriter, r *http.Request, f *staticFile) {
	h := w.Header()
	body, tag := f.body, f.etag
	if f.gz != nil {
		h.Set("Vary", "Accept-Encoding")
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			body, tag = f.gz, f.gzTag
			h.Set("Content-Encoding", "gzip")
		}
	}
	h.Set("ETag", tag)
	h.Set("Cache-Control", "no-cache")
	if etagMatches(r.Header.Get("If-None-Match"), tag) {
		h.Del("Content-Encoding")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", f.ctype)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// acceptsGzip reads an Accept-Encoding header: gzip (or *) listed without
// q=0.
func acceptsGzip(header string) bool {
	for part := range strings.SplitSeq(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		if coding != "gzip" && coding != "*" {
			continue
		}
		q := 1.0
		for p := range strings.SplitSeq(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				if x, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					q = x
				}
			}
		}
		if q > 0 {
			return true
		}
	}
	return false
}

// etagMatches is If-None-Match's weak comparison (RFC 9110 13.1.2): the
// header is "*" or lists tag, with or without W/.
func etagMatches(header, tag string) bool {
	for part := range strings.SplitSeq(header, ",") {
		part = strings.TrimSpace(part)
		if part == "*" || strings.TrimPrefix(part, "W/") == tag {
			return true
		}
	}
	return false
}
