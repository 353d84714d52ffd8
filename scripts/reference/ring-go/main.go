// A plain, hand-written Go ring (E2), outside toll: N goroutines joined by
// unbuffered channels, one token passed round M times; prints the ns per hop
// of each trial as JSON. Run: go run . N M TRIALS
package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

func trial(n int, m int) float64 {
	last := n * m
	chans := make([]chan int, n)
	for i := range chans {
		chans[i] = make(chan int)
	}
	done := make(chan int)
	for i := 0; i < n; i++ {
		in, out := chans[i], chans[(i+1)%n]
		go func() {
			for k := 0; k < m; k++ {
				v := <-in + 1
				if v == last {
					done <- v
					return
				}
				out <- v
			}
		}()
	}
	t0 := time.Now()
	chans[0] <- 0
	<-done
	return float64(time.Since(t0).Nanoseconds()) / float64(last)
}

func main() {
	n, _ := strconv.Atoi(os.Args[1])
	m, _ := strconv.Atoi(os.Args[2])
	trials, _ := strconv.Atoi(os.Args[3])
	var out []string
	for t := 0; t < trials; t++ {
		out = append(out, fmt.Sprintf("%.2f", trial(n, m)))
	}
	fmt.Printf("{\"per_hop_ns\":[%s]}\n", strings.Join(out, ","))
}
