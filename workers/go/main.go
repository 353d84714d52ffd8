// toll's Go worker: the control plane of spec/wire.md on stdin/stdout,
// serving transfers over inherited pipes, unix sockets and loopback TCP, and
// spawning and ringing goroutines, and calling into C through cgo (`ffi`).
// Standard library only.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
)

// command is one control-plane line; unknown fields are ignored.
type command struct {
	Op        string `json:"op"`
	Transport string `json:"transport"`
	ReadFd    *int   `json:"read_fd"`
	WriteFd   *int   `json:"write_fd"`
	Path      string `json:"path"`
	Host      string `json:"host"`
	Port      int    `json:"port"`
	Unit      string `json:"unit"`
	N         *int64 `json:"n"`
	M         *int64 `json:"m"`
	Binding   string `json:"binding"`
	Pass      string `json:"pass"`
	Touch     string `json:"touch"`
	Reps      *int64 `json:"reps"`
	Seed      *int64 `json:"seed"`
}

type object = map[string]any

func answer(v object) {
	b, _ := json.Marshal(v)
	os.Stdout.Write(append(b, '\n'))
}

func refuse(format string, args ...any) object {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintln(os.Stderr, "toll-worker-go:", msg)
	return object{"ok": false, "error": msg}
}

// pipes are the inherited fds, opened once and kept for every pipe transfer.
var pipes = map[int]*os.File{}

func inherited(fd int) *os.File {
	if f, ok := pipes[fd]; ok {
		return f
	}
	f := os.NewFile(uintptr(fd), "fd"+strconv.Itoa(fd))
	pipes[fd] = f
	return f
}

func transfer(c command, f fault) object {
	var in io.Reader
	var out io.Writer
	var conn net.Conn
	switch c.Transport {
	case "pipe":
		if c.ReadFd == nil || c.WriteFd == nil {
			return refuse("transfer command lacks `read_fd` or `write_fd`")
		}
		in, out = inherited(*c.ReadFd), inherited(*c.WriteFd)
	case "unix", "tcp":
		var err error
		if c.Transport == "unix" {
			conn, err = net.Dial("unix", c.Path)
		} else {
			conn, err = net.Dial("tcp", net.JoinHostPort(c.Host, strconv.Itoa(c.Port)))
		}
		if err != nil {
			return refuse("cannot connect: %v", err)
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetNoDelay(true)
		}
		in, out = conn, conn
	default:
		return refuse("unsupported transport %q: this worker speaks pipe, unix, tcp", c.Transport)
	}
	answer(object{"ok": true, "event": "ready"})
	s, err := serve(in, out, f)
	if conn != nil {
		conn.Close()
	}
	if err != nil {
		return refuse("%s", describe(err))
	}
	return object{"ok": true, "event": "done", "frames": s.frames, "items": s.items}
}

func units(c command, f fault) object {
	if c.N == nil {
		return refuse("`%s` needs a whole number `n`", c.Op)
	}
	n := *c.N
	if f.kind == "exit" && n >= 0 && uint64(n) >= f.k {
		os.Exit(3)
	}
	if c.Unit != "goroutine" {
		return refuse("unknown unit %q: the go worker has goroutine", c.Unit)
	}
	if c.Op == "spawn" {
		if n < 1 {
			return refuse("spawn needs n of at least 1")
		}
		ns, memKb, made := spawnGoroutines(int(n))
		return object{"ok": true, "event": "done", "unit": c.Unit, "n": n, "made": made, "ns": ns,
			"mem_kb": memKb, "mem_how": "go-heap"}
	}
	if c.M == nil || n < 2 || *c.M < 1 {
		return refuse("a ring needs n of at least 2 and m of at least 1")
	}
	ns, hops := ringGoroutines(int(n), *c.M)
	return object{"ok": true, "event": "done", "unit": c.Unit, "n": n, "m": *c.M, "hops": hops, "ns": ns}
}

func main() {
	f := parseFault(os.Getenv("TOLL_WORKER_FAULT"))
	lines := bufio.NewScanner(os.Stdin)
	lines.Buffer(make([]byte, 64*1024), 1024*1024)
	for lines.Scan() {
		line := lines.Bytes()
		if len(line) == 0 {
			continue
		}
		var c command
		if err := json.Unmarshal(line, &c); err != nil {
			answer(refuse("not JSON: %v", err))
			continue
		}
		switch c.Op {
		case "hello":
			answer(object{"ok": true, "runtime": "go", "version": runtime.Version(), "wire": 1,
				"pid": os.Getpid(), "ops": []string{"transfer", "spawn", "ring", "ffi"},
				"transports": []string{"pipe", "unix", "tcp"}, "units": []string{"goroutine"},
				"bindings": ffiNames()})
		case "transfer":
			answer(transfer(c, f))
		case "spawn", "ring":
			answer(units(c, f))
		case "ffi":
			answer(ffi(c))
		case "exit":
			return
		default:
			answer(refuse("unknown op %q", c.Op))
		}
	}
}
