// The Go worker passes spec/vectors and serves real transfers, spawns and rings.
// Run: go test ./... (in workers/go).
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

var passed, failed atomic.Int64

// TestMain runs the tests, or, re-executed with TOLL_GO_WORKER=1, the worker.
func TestMain(m *testing.M) {
	if os.Getenv("TOLL_GO_WORKER") == "1" {
		main()
		os.Exit(0)
	}
	code := m.Run()
	fmt.Printf("go worker: %d passed, %d failed\n", passed.Load(), failed.Load())
	os.Exit(code)
}

// count records a test's outcome for the closing line.
func count(t *testing.T) {
	t.Cleanup(func() {
		if t.Failed() {
			failed.Add(1)
		} else {
			passed.Add(1)
		}
	})
}

func rows(t *testing.T, name string) [][]string {
	b, err := os.ReadFile(filepath.Join("..", "..", "spec", "vectors", name))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "#") {
			out = append(out, strings.Split(l, "\t"))
		}
	}
	return out
}

func unhex(t *testing.T, s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFramesDecodeAndEncodeAsSpecified(t *testing.T) {
	count(t)
	frames := rows(t, "frames.tsv")
	if len(frames) < 10 {
		t.Fatal("too few frame vectors")
	}
	for _, r := range frames {
		name, typ, kind, status, seq, cnt, sum, items, hx := r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8]
		b := unhex(t, hx)
		seqN, _ := strconv.ParseUint(seq, 10, 32)
		cntN, _ := strconv.ParseUint(cnt, 10, 32)
		if typ == "request" {
			h := decodeHeader(b[:16])
			wantKind := uint32(kindData)
			if kind == "end" {
				wantKind = kindEnd
			}
			if !h.magicOK || h.kind != wantKind || h.seq != uint32(seqN) || h.count != uint32(cntN) {
				t.Errorf("%s: decoded %+v", name, h)
			}
			var got []string
			for i := 16; i+4 <= len(b); i += 4 {
				got = append(got, strconv.Itoa(int(int32(binary.LittleEndian.Uint32(b[i:])))))
			}
			want := items
			if len(got) == 0 {
				got = []string{"-"}
			}
			if strings.Join(got, ",") != want {
				t.Errorf("%s: items %v, want %s", name, got, want)
			}
		} else {
			st := uint32(statusOK)
			if status == "bad_frame" {
				st = statusBad
			}
			sumN, _ := strconv.ParseInt(sum, 10, 64)
			enc := encodeReply(make([]byte, replyLen), st, uint32(seqN), uint32(cntN), sumN)
			if hex.EncodeToString(enc) != hx {
				t.Errorf("%s: encoded %x, want %s", name, enc, hx)
			}
		}
	}
}

// chunked reads at most n bytes per Read.
type chunked struct {
	r io.Reader
	n int
}

func (c chunked) Read(p []byte) (int, error) {
	if len(p) > c.n {
		p = p[:c.n]
	}
	return c.r.Read(p)
}

func TestSessionsProduceExactlyTheExpectedBytesAtAnyChunking(t *testing.T) {
	count(t)
	sessions := rows(t, "sessions.tsv")
	if len(sessions) < 3 {
		t.Fatal("too few sessions")
	}
	for _, r := range sessions {
		input, want := unhex(t, r[1]), r[2]
		for _, n := range []int{1, 7, 1 << 20} {
			var out bytes.Buffer
			serve(chunked{bytes.NewReader(input), n}, &out, fault{})
			if hex.EncodeToString(out.Bytes()) != want {
				t.Errorf("%s (chunks of %d): got %x, want %s", r[0], n, out.Bytes(), want)
			}
		}
	}
}

func TestFaultsParse(t *testing.T) {
	count(t)
	if f := parseFault("exit:7"); f.kind != "exit" || f.k != 7 {
		t.Error(f)
	}
	if f := parseFault("garbage:0"); f.kind != "garbage" {
		t.Error(f)
	}
	for _, s := range []string{"", "exit", "exit:x", "boom:3"} {
		if parseFault(s).kind != "" {
			t.Error(s)
		}
	}
}

// worker is the worker process, driven as toll drives it.
type worker struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
}

func start(t *testing.T, env ...string) *worker {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(append(os.Environ(), "TOLL_GO_WORKER=1"), env...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	return &worker{cmd, stdin, bufio.NewScanner(stdout)}
}

func (w *worker) ask(t *testing.T, line string) map[string]any {
	io.WriteString(w.stdin, line+"\n")
	if !w.out.Scan() {
		return nil
	}
	var v map[string]any
	if err := json.Unmarshal(w.out.Bytes(), &v); err != nil {
		t.Fatalf("not JSON: %q", w.out.Text())
	}
	return v
}

func frame(kind, seq, n uint32) []byte {
	b := make([]byte, 16+4*n)
	copy(b, requestMagic)
	binary.LittleEndian.PutUint32(b[4:], kind)
	binary.LittleEndian.PutUint32(b[8:], seq)
	binary.LittleEndian.PutUint32(b[12:], n)
	for i := uint32(0); i < n; i++ {
		binary.LittleEndian.PutUint32(b[16+4*i:], 123)
	}
	return b
}

func TestEndToEndHelloTransferSpawnRing(t *testing.T) {
	count(t)
	w := start(t)
	h := w.ask(t, `{"op":"hello"}`)
	if h["runtime"] != "go" || h["wire"] != 1.0 || fmt.Sprint(h["units"]) != "[goroutine]" {
		t.Fatalf("hello: %v", h)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w.stdin, `{"op":"transfer","transport":"unix","path":"`+path+`"}`+"\n")
	c, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	if !w.out.Scan() || !strings.Contains(w.out.Text(), `"ready"`) {
		t.Fatalf("ready: %q", w.out.Text())
	}
	for seq, n := range []uint32{0, 5, 1000} {
		c.Write(frame(kindData, uint32(seq), n))
		r := make([]byte, replyLen)
		if _, err := io.ReadFull(c, r); err != nil {
			t.Fatal(err)
		}
		if want := encodeReply(make([]byte, replyLen), statusOK, uint32(seq), n, int64(123*n)); !bytes.Equal(r, want) {
			t.Errorf("reply %x, want %x", r, want)
		}
	}
	c.Write(frame(kindEnd, 3, 0))
	io.ReadFull(c, make([]byte, replyLen))
	if !w.out.Scan() || !strings.Contains(w.out.Text(), `"frames":3`) || !strings.Contains(w.out.Text(), `"items":1005`) {
		t.Fatalf("done: %q", w.out.Text())
	}
	s := w.ask(t, `{"op":"spawn","unit":"goroutine","n":500}`)
	if s["ok"] != true || s["n"] != 500.0 || s["made"] != 500.0 || s["ns"].(float64) <= 0 || s["mem_how"] != "go-heap" {
		t.Errorf("spawn: %v", s)
	}
	r := w.ask(t, `{"op":"ring","unit":"goroutine","n":7,"m":13}`)
	if r["ok"] != true || r["hops"] != 91.0 || r["ns"].(float64) <= 0 {
		t.Errorf("ring: %v", r)
	}
	for _, bad := range []string{
		`{"op":"spawn","unit":"fiber","n":5}`,
		`{"op":"ring","unit":"goroutine","n":1,"m":5}`,
		`{"op":"transfer","transport":"shm","path":"/x"}`,
		`{"op":"nonsense"}`,
	} {
		if a := w.ask(t, bad); a["ok"] != false || a["error"] == "" {
			t.Errorf("%s: %v", bad, a)
		}
	}
}

func TestPipeTransferOverInheritedFds(t *testing.T) {
	count(t)
	reqR, reqW, _ := os.Pipe()
	repR, repW, _ := os.Pipe()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "TOLL_GO_WORKER=1")
	cmd.ExtraFiles = []*os.File{reqR, repW} // fds 3 and 4
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reqR.Close()
	repW.Close()
	out := bufio.NewScanner(stdout)
	for round := 0; round < 2; round++ { // the pipes stay open for the next transfer
		io.WriteString(stdin, `{"op":"transfer","transport":"pipe","read_fd":3,"write_fd":4}`+"\n")
		out.Scan()
		reqW.Write(append(frame(kindData, 0, 10), frame(kindEnd, 1, 0)...))
		r := make([]byte, 2*replyLen)
		io.ReadFull(repR, r)
		if binary.LittleEndian.Uint64(r[16:24]) != 1230 {
			t.Errorf("round %d: sum %x", round, r)
		}
		if !out.Scan() || !strings.Contains(out.Text(), `"items":10`) {
			t.Errorf("done: %q", out.Text())
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Error(err)
	}
}

func TestExitFaultForSpawn(t *testing.T) {
	count(t)
	w := start(t, "TOLL_WORKER_FAULT=exit:100")
	if a := w.ask(t, `{"op":"spawn","unit":"goroutine","n":10}`); a["ok"] != true {
		t.Fatalf("below K: %v", a)
	}
	if a := w.ask(t, `{"op":"spawn","unit":"goroutine","n":100}`); a != nil {
		t.Fatalf("answered at K: %v", a)
	}
	err := w.cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("exit: %v", err)
	}
}

// Issue: goroutines showed 0.00 KB each, since the resident set stops growing
// once the runtime reuses the memory of an earlier trial's goroutines.
func TestEverySpawnCountsTheGoroutinesMemory(t *testing.T) {
	count(t)
	for trial := 1; trial <= 3; trial++ {
		// Each goroutine has a stack of 2 KB at least.
		if _, memKb, _ := spawnGoroutines(10000); memKb < 10000*2 {
			t.Errorf("trial %d: %d kB for 10000 goroutines", trial, memKb)
		}
	}
}
