// spawn and ring (spec/wire.md) with goroutines: spawned goroutines count
// themselves ready on an atomic counter and wait on a channel the spawner
// closes; the ring passes the token through unbuffered channels.
package main

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// inUseKb is what the runtime has in use for heap objects and goroutine
// stacks, in kB. The resident set does not serve here: the runtime keeps the
// memory of ended goroutines mapped and hands it to the next ones, so VmRSS
// stops growing after the first trial.
func inUseKb() int64 {
	s := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/stacks:bytes"},
	}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()+s[1].Value.Uint64()) / 1024
}

func spawnGoroutines(n int) (ns int64, memKb int64, made int64) {
	var ready atomic.Int64
	var ended sync.WaitGroup
	allReady, gate := make(chan struct{}), make(chan struct{})
	ended.Add(n)
	runtime.GC()
	m0 := inUseKb()
	t0 := time.Now()
	for i := 0; i < n; i++ {
		go func() {
			if ready.Add(1) == int64(n) {
				close(allReady)
			}
			<-gate
			ended.Done()
		}()
	}
	<-allReady
	ns = time.Since(t0).Nanoseconds()
	memKb = inUseKb() - m0
	made = ready.Load()
	close(gate)
	ended.Wait()
	return ns, memKb, made
}

func ringGoroutines(n int, m int64) (ns int64, hops int64) {
	// The laps are a plain Go ring: ints on unbuffered channels, each
	// goroutine returning after its m-th hop, nothing else in the loop.
	last := n * int(m)
	chans := make([]chan int, n)
	for i := range chans {
		chans[i] = make(chan int)
	}
	done := make(chan int)
	before := runtime.NumGoroutine()
	for i := 0; i < n; i++ {
		in, out := chans[i], chans[(i+1)%n]
		go func() {
			for k := 0; k < int(m); k++ {
				v := <-in + 1
				if v == last {
					done <- v
					return
				}
				out <- v
			}
		}()
	}
	// No runtime.GC() here: a collection just before the laps made them
	// slower (by ~14% at N = 1000, measured against the plain ring), and a
	// plain program does not collect either.
	t0 := time.Now()
	chans[0] <- 0
	hops = int64(<-done)
	ns = time.Since(t0).Nanoseconds()
	// Untimed: let every goroutine of the ring end before the next trial.
	for runtime.NumGoroutine() > before {
		runtime.Gosched()
	}
	return ns, hops
}
