package arenatest

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sudoku-arena/arena/internal/proctest"
)

// nginxMissing is what a test that needs nginx says when there is none.
const nginxMissing = "arenatest: nginx not found; apt-get install nginx-light, or set E2E_REQUIRED=1 to fail"

// NginxPath is the nginx binary's path, "" when there is none (it is
// often in /usr/sbin, off a user's PATH).
func NginxPath() string {
	for _, p := range []string{"nginx", "/usr/sbin/nginx"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	return ""
}

// Nginx is the nginx binary's path: skips the test when there is none, or
// fails it when E2E_REQUIRED=1 (as in CI, where a skipped test would pass
// silently).
func Nginx(tb testing.TB) string {
	tb.Helper()
	if path := NginxPath(); path != "" {
		return path
	}
	if os.Getenv("E2E_REQUIRED") == "1" {
		tb.Fatal(nginxMissing)
	}
	tb.Skip(nginxMissing)
	return ""
}

var (
	upstreamServer = regexp.MustCompile(`(?m)^([ \t]*server[ \t]+)([^ \t;{\n]+)([^;\n{]*;)$`)
	listenLine     = regexp.MustCompile(`(?m)^([ \t]*listen[ \t]+)[^ \t;\n]+;$`)
	workersLine    = regexp.MustCompile(`(?m)^worker_processes[ \t]+[^ \t;\n]+;$`)
)

// NginxConfig rewrites an nginx configuration meant for a deployment
// (deploy/nginx.conf) to run from dir as any user: its upstream's servers
// become upstreams, in order and with their parameters kept (there must
// be as many), its listen address becomes listen, and the temporary files
// go under dir. It runs one worker, so that its round robin is one
// rotation a test can count on (each worker keeps its own). Everything
// else, the proxying itself, is kept as it is.
func NginxConfig(conf, listen string, upstreams []string, dir string) (string, error) {
	servers := upstreamServer.FindAllStringIndex(conf, -1)
	if len(servers) != len(upstreams) {
		return "", fmt.Errorf("arenatest: nginx config has %d upstream servers, want %d", len(servers), len(upstreams))
	}
	n := 0
	conf = upstreamServer.ReplaceAllStringFunc(conf, func(line string) string {
		m := upstreamServer.FindStringSubmatch(line)
		n++
		return m[1] + upstreams[n-1] + m[3]
	})
	if len(listenLine.FindAllString(conf, -1)) != 1 {
		return "", fmt.Errorf("arenatest: nginx config wants one listen line")
	}
	conf = listenLine.ReplaceAllString(conf, "${1}"+listen+";")
	conf = workersLine.ReplaceAllLiteralString(conf, "worker_processes 1;")
	var temps strings.Builder
	for _, kind := range []string{"client_body", "proxy", "fastcgi", "uwsgi", "scgi"} {
		fmt.Fprintf(&temps, "\n    %s_temp_path %s;", kind, filepath.Join(dir, kind))
	}
	http := regexp.MustCompile(`(?m)^http\s*\{`)
	if !http.MatchString(conf) {
		return "", fmt.Errorf("arenatest: nginx config has no http block")
	}
	return http.ReplaceAllLiteralString(conf, "http {"+temps.String()), nil
}

// NginxUpstreams are the addresses of the servers an nginx
// configuration's upstream balances over.
func NginxUpstreams(conf string) []string {
	var addrs []string
	for _, m := range upstreamServer.FindAllStringSubmatch(conf, -1) {
		addrs = append(addrs, m[2])
	}
	return addrs
}

// Balancer is nginx in front of servers, as an operator runs it: one URL
// for them all.
type Balancer struct {
	addr string
}

// URL is the balancer's base URL; WS is its WebSocket endpoint.
func (b *Balancer) URL() string { return "http://" + b.addr }
func (b *Balancer) WS() string  { return "ws://" + b.addr + "/ws" }

// StartBalancer starts nginx from the configuration file conf (rewritten
// by NginxConfig) in front of the servers, on a loopback port, and waits
// until a request through it reaches one. It is stopped when the test
// ends, and dies with the test binary (see proctest.Detach). Without nginx the test
// skips (see Nginx).
func StartBalancer(tb testing.TB, conf string, servers []*Arena) *Balancer {
	tb.Helper()
	return StartBalancerOn(tb, FreeAddr(tb), conf, servers)
}

// StartBalancerOn is StartBalancer on the address given: one known before
// the servers start, for their PUBLIC_URL.
func StartBalancerOn(tb testing.TB, addr, conf string, servers []*Arena) *Balancer {
	tb.Helper()
	upstreams := make([]string, len(servers))
	for i, s := range servers {
		upstreams[i] = s.Addr()
	}
	return StartBalancerFor(tb, addr, conf, upstreams)
}

// StartBalancerFor is StartBalancerOn in front of any HTTP servers, by
// their addresses (HOST:PORT), each of which answers GET /readyz: a test
// of the balancer's own rules needs no arena behind it.
func StartBalancerFor(tb testing.TB, addr, conf string, upstreams []string) *Balancer {
	tb.Helper()
	bin := Nginx(tb)
	raw, err := os.ReadFile(conf)
	if err != nil {
		tb.Fatalf("arenatest: %v", err)
	}
	dir, err := os.MkdirTemp("", "arenatest-nginx-")
	if err != nil {
		tb.Fatalf("arenatest: %v", err)
	}
	// nginx's workers run as nobody when the test runs as root: they must
	// reach the temporary files.
	if err := os.Chmod(dir, 0o755); err != nil {
		tb.Fatalf("arenatest: %v", err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	b := &Balancer{addr: addr}
	text, err := NginxConfig(string(raw), b.addr, upstreams, dir)
	if err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		tb.Fatalf("arenatest: %v", err)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", path, "-e", filepath.Join(dir, "error.log"),
		"-g", "daemon off; pid "+filepath.Join(dir, "nginx.pid")+";")
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	proctest.Detach(cmd) // its workers die with it: nginx's process group is killed at the end
	if err := cmd.Start(); err != nil {
		tb.Fatalf("arenatest: start nginx: %v", err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	tb.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			proctest.KillGroup(cmd)
			<-exited
		}
		proctest.KillGroup(cmd) // any worker the master left
		if tb.Failed() {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			tb.Logf("nginx output:\n%s\nnginx error log:\n%s", out, log)
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := Get(b.URL() + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return b
			}
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			tb.Fatalf("arenatest: nginx exited: %s\n%s", out, log)
		default:
		}
		if time.Now().After(deadline) {
			tb.Fatalf("arenatest: nginx did not pass /readyz on within 20s: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
