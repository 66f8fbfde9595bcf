package main

import (
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/sudoku-arena/arena/internal/arenatest"
	"github.com/sudoku-arena/arena/internal/config"
	"github.com/sudoku-arena/arena/server"
)

// The deployment files, from this package's directory.
const (
	composeFile = "../../docker-compose.yml"
	nginxFile   = "../../deploy/nginx.conf"
)

// compose is what the test reads of docker-compose.yml.
type compose struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Environment map[string]string `yaml:"environment"`
		Ports       []string          `yaml:"ports"`
		Expose      []string          `yaml:"expose"`
		Volumes     []string          `yaml:"volumes"`
	} `yaml:"services"`
}

// composeVar is a ${NAME:-default} in the compose file; composeRequired
// a ${NAME:?message}, a variable without a default that compose refuses
// to start without.
var (
	composeVar      = regexp.MustCompile(`\$\{[A-Z_]+:-([^}]*)\}`)
	composeRequired = regexp.MustCompile(`^\$\{([A-Z_]+):\?([^}]*)\}$`)
)

// TestDeployment checks that docker-compose.yml and deploy/nginx.conf
// agree: nginx's upstream is the arena services on the port they listen
// on, in NODE_ADDR too; the port it listens on is the one compose
// publishes; every setting the nodes get is one of internal/config's and
// their environment loads; NODE_SECRET has no default (compose refuses
// to start without it, saying how to make one); the nodes share their
// database, secret and public URL; the per-address limits are off behind
// the proxy; the metrics are on a port of their own, exposed to compose's
// network only, never through nginx; and nginx clears the nodes' headers
// (server.RelayHeaders) a client sends. With docker-compose and nginx on
// the machine, each checks its file as well.
func TestDeployment(t *testing.T) {
	raw, err := os.ReadFile(composeFile)
	require.NoError(t, err)
	var c compose
	require.NoError(t, yaml.Unmarshal(raw, &c))
	conf, err := os.ReadFile(nginxFile)
	require.NoError(t, err)

	known := map[string]bool{}
	for _, s := range config.Settings() {
		known[s.Name] = true
	}
	upstreams := arenatest.NginxUpstreams(string(conf))
	var nodes []string
	shared := map[string]string{}
	for name, svc := range c.Services {
		if svc.Environment["NODE_ADDR"] == "" {
			continue
		}
		nodes = append(nodes, name)
		env := map[string]string{}
		for k, v := range svc.Environment {
			assert.True(t, known[k], "%s: %s is not a setting of internal/config", name, k)
			env[k] = composeVar.ReplaceAllString(v, "$1")
			if m := composeRequired.FindStringSubmatch(v); m != nil {
				assert.Equal(t, k, m[1], "%s: %s is given by the variable of its name", name, k)
				assert.Contains(t, m[2], "openssl rand -hex 32", "%s: compose says how to make %s", name, k)
				env[k] = arenatest.NodeSecret
			}
		}
		assert.Equal(t, arenatest.NodeSecret, env["NODE_SECRET"], "%s: NODE_SECRET has no default: the operator sets it", name)
		_, err := config.Load(func(k string) string { return env[k] })
		assert.NoError(t, err, "%s's environment", name)

		_, port, err := net.SplitHostPort(env["LISTEN_ADDR"])
		require.NoError(t, err)
		addr := name + ":" + port
		assert.Contains(t, upstreams, addr, "nginx's upstream has %s", name)
		assert.Equal(t, "http://"+addr, env["NODE_ADDR"], "%s: other nodes reach it by its service name", name)
		assert.Equal(t, name, env["NODE_ID"])
		for _, k := range []string{"ROOMS_PER_ADDR", "SOCKETS_PER_ADDR", "PLAYER_RATE", "CREATE_RATE", "REPLAY_RATE", "RECORD_RATE"} {
			assert.Equal(t, "0", env[k], "%s: %s is off behind the proxy", name, k)
		}
		_, metricsPort, err := net.SplitHostPort(env["METRICS_ADDR"])
		if assert.NoError(t, err, "%s serves its metrics for the scrape (METRICS_ADDR)", name) {
			assert.NotEqual(t, port, metricsPort, "%s: the metrics have a port of their own", name)
			assert.Equal(t, []string{metricsPort}, svc.Expose, "%s: the scrape port is exposed on compose's network", name)
			assert.Empty(t, svc.Ports, "%s: no port of a node is published", name)
		}
		for _, k := range []string{"DATABASE_URL", "NODE_SECRET", "PUBLIC_URL", "NODE_TIMEOUT"} {
			if v, ok := shared[k]; ok {
				assert.Equal(t, v, env[k], "%s: every node has the same %s", name, k)
			}
			shared[k] = env[k]
		}
	}
	slices.Sort(nodes)
	assert.Equal(t, []string{"arena1", "arena2", "arena3"}, nodes)
	assert.Len(t, upstreams, len(nodes), "nginx's upstream is the nodes, no more")
	db, err := url.Parse(shared["DATABASE_URL"])
	require.NoError(t, err)
	assert.Contains(t, c.Services, db.Hostname(), "the database is a service")

	proxy, ok := c.Services["nginx"]
	require.True(t, ok, "an nginx service")
	assert.Contains(t, proxy.Volumes, "./deploy/nginx.conf:/etc/nginx/nginx.conf:ro")
	listen := regexp.MustCompile(`(?m)^\s*listen\s+(\d+);$`).FindStringSubmatch(string(conf))
	require.NotNil(t, listen, "nginx listens on a port")
	require.Len(t, proxy.Ports, 1)
	assert.True(t, strings.HasSuffix(proxy.Ports[0], ":"+listen[1]), "compose publishes nginx's port %s: %s", listen[1], proxy.Ports[0])
	public, err := url.Parse(shared["PUBLIC_URL"])
	require.NoError(t, err)
	assert.Equal(t, public.Port(), strings.Split(proxy.Ports[0], ":")[0], "PUBLIC_URL is the published port")
	for _, want := range []string{"proxy_set_header Upgrade $http_upgrade;", "proxy_set_header Connection $connection_upgrade;", "proxy_http_version 1.1;"} {
		assert.Contains(t, string(conf), want, "WebSockets pass through")
	}
	assert.Regexp(t, `location = /metrics \{\s*return 404;\s*\}`, string(conf), "nginx passes no /metrics on")
	for _, h := range server.RelayHeaders {
		assert.Regexp(t, `(?m)^\s*proxy_set_header\s+`+regexp.QuoteMeta(h)+`\s+"";$`, string(conf), "nginx clears a client's %s", h)
	}

	if dc, err := exec.LookPath("docker-compose"); err == nil {
		check := func(env ...string) ([]byte, error) {
			cmd := exec.Command(dc, "-f", composeFile, "config", "-q")
			cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "NODE_SECRET=") }), env...)
			return cmd.CombinedOutput()
		}
		out, err := check("NODE_SECRET=" + arenatest.NodeSecret)
		assert.NoError(t, err, "docker-compose config -q: %s", out)
		out, err = check()
		assert.Error(t, err, "docker-compose config -q without NODE_SECRET: %s", out)
		assert.Contains(t, string(out), "set NODE_SECRET", "compose says what is missing")
	}
	if nginx := arenatest.NginxPath(); nginx != "" {
		dir := t.TempDir()
		text, err := arenatest.NginxConfig(string(conf), arenatest.FreeAddr(t), []string{"127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"}, dir)
		require.NoError(t, err)
		path := filepath.Join(dir, "nginx.conf")
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		out, err := exec.Command(nginx, "-t", "-p", dir, "-c", path, "-e", filepath.Join(dir, "error.log"),
			"-g", "pid "+filepath.Join(dir, "nginx.pid")+";").CombinedOutput()
		assert.NoError(t, err, "nginx -t: %s", out)
	}
}
