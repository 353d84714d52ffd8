// toll's Go RPC server: the control plane of spec/rpc.md on stdin/stdout,
// serving null calls over four stacks a Go service would really deploy: raw
// frames on net, HTTP/1.1 and h2c on net/http, and google.golang.org/grpc.
// Every call is counted and answered with the payload's length, nothing else.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"

	"google.golang.org/grpc"
)

// rpcVersion is spec/rpc.md's version.
const rpcVersion = 1

// stacks are the ones this server serves, in the order spec/rpc.md lists them.
var stacks = []string{"raw", "http1", "h2", "grpc"}

// calls counts calls answered, every stack together (spec/rpc.md, `stats`).
var calls atomic.Uint64

// command is one control-plane line; unknown fields are ignored.
type command struct {
	Op    string `json:"op"`
	Stack string `json:"stack"`
	Host  string `json:"host"`
	Port  int    `json:"port"`
}

type object = map[string]any

func answer(v object) {
	b, _ := json.Marshal(v)
	os.Stdout.Write(append(b, '\n'))
}

func refuse(format string, args ...any) object {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintln(os.Stderr, "toll-rpc-go:", msg)
	return object{"ok": false, "error": msg}
}

// cpuNanos is this process's user + system CPU time (getrusage RUSAGE_SELF).
func cpuNanos() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// serve starts one stack on its own listener and names the port it got.
func serve(c command) object {
	var start func(net.Listener)
	switch c.Stack {
	case "raw":
		start = serveRaw
	case "http1":
		start = serveHTTP1
	case "h2":
		start = serveH2
	case "grpc":
		start = serveGRPC
	default:
		return refuse("unknown stack %q: this server serves %v", c.Stack, stacks)
	}
	host := c.Host
	if host == "" {
		host = "127.0.0.1"
	}
	l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(c.Port)))
	if err != nil {
		return refuse("cannot listen on %s port %d: %v", host, c.Port, err)
	}
	go start(noDelay{l.(*net.TCPListener)})
	port := l.Addr().(*net.TCPAddr).Port
	return object{"ok": true, "event": "listening", "stack": c.Stack, "port": port}
}

func main() {
	lines := bufio.NewScanner(os.Stdin)
	lines.Buffer(make([]byte, 64*1024), 1024*1024)
	for lines.Scan() {
		var c command
		if err := json.Unmarshal(lines.Bytes(), &c); err != nil {
			answer(refuse("not a JSON command: %v", err))
			continue
		}
		switch c.Op {
		case "hello":
			answer(object{
				"ok": true, "runtime": "go", "rpc": rpcVersion, "pid": os.Getpid(),
				"version": runtime.Version() + " grpc-go " + grpc.Version,
				"stacks":  stacks,
			})
		case "serve":
			answer(serve(c))
		case "stats":
			answer(object{"ok": true, "calls": calls.Load(), "cpu_ns": cpuNanos()})
		case "exit":
			os.Exit(0)
		default:
			answer(refuse("unknown op %q: valid ops are hello, serve, stats, exit", c.Op))
		}
	}
	// End of stdin: the harness is gone, so is the server.
	os.Exit(0)
}
