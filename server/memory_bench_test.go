package server_test

import (
	"runtime"
	"testing"
	"time"
)

// BenchmarkIdleConnMemory is what an idle connection in a co-op room
// costs the process (server and test client together, both in this
// process): heap and goroutine stack bytes, and goroutines, per
// connection, over b.N rooms of four.
func BenchmarkIdleConnMemory(b *testing.B) {
	e := newEnv(b)
	var before, after runtime.MemStats
	settle := func(m *runtime.MemStats) int {
		time.Sleep(200 * time.Millisecond) // writers finish
		for range 3 {
			runtime.GC()
		}
		runtime.ReadMemStats(m)
		return runtime.NumGoroutine()
	}
	g0 := settle(&before)
	var clients []*client
	for i := 0; i < b.N; i++ {
		id := e.createRoom("coop", "easy")
		for _, name := range []string{"Ann", "Bob", "Cid", "Dee"} {
			c := e.dial(name)
			c.join(id)
			clients = append(clients, c)
		}
	}
	g1 := settle(&after)
	n := float64(len(clients))
	b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/n, "heap-B/conn")
	b.ReportMetric(float64(after.StackInuse-before.StackInuse)/n, "stack-B/conn")
	b.ReportMetric(float64(g1-g0)/n, "goroutines/conn")
	runtime.KeepAlive(clients)
}
