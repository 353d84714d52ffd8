// The Go RPC server passes spec/vectors/rpc and answers a real call on every
// stack, driven over its control plane as toll drives it.
// Run: go test ./... (in workers/go-rpc).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

var passed, failed atomic.Int64

// TestMain runs the tests, or, re-executed with TOLL_RPC_SERVER=1, the server.
func TestMain(m *testing.M) {
	if os.Getenv("TOLL_RPC_SERVER") == "1" {
		main()
		os.Exit(0)
	}
	code := m.Run()
	fmt.Printf("go rpc server: %d passed, %d failed\n", passed.Load(), failed.Load())
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

// vector is one row of spec/vectors/rpc/vectors.tsv.
type vector struct {
	name, stack, what, expect string
	n                         int
	data                      []byte
}

func vectors(t *testing.T) map[string]vector {
	b, err := os.ReadFile(filepath.Join("..", "..", "spec", "vectors", "rpc", "vectors.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]vector{}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Split(l, "\t")
		if len(f) != 6 {
			t.Fatalf("bad vector row %q", l)
		}
		n, _ := strconv.Atoi(f[3])
		var data []byte
		if f[5] != "-" {
			if data, err = hex.DecodeString(f[5]); err != nil {
				t.Fatal(err)
			}
		}
		out[f[0]] = vector{f[0], f[1], f[2], f[4], n, data}
	}
	if len(out) < 10 {
		t.Fatal("too few rpc vectors")
	}
	return out
}

// listen serves one stack in this process on a free loopback port.
func listen(t *testing.T, stack string) string {
	a := serve(command{Stack: stack, Host: "127.0.0.1"})
	if a["ok"] != true {
		t.Fatalf("serve %s: %v", stack, a)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(a["port"].(int)))
}

func TestRawFramesAnswerAsSpecified(t *testing.T) {
	count(t)
	vs := vectors(t)
	addr := listen(t, "raw")
	for _, v := range vs {
		if v.stack != "raw" || v.what != "request" {
			continue
		}
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Write(v.data); err != nil {
			t.Fatal(err)
		}
		if v.expect == "close" {
			if n, err := c.Read(make([]byte, 4)); err != io.EOF {
				t.Errorf("%s: the server answered %d bytes (%v) instead of closing", v.name, n, err)
			}
		} else {
			want := vs[strings.TrimPrefix(v.expect, "reply ")].data
			got := make([]byte, len(want))
			if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s: got %x (%v), want %x", v.name, got, err, want)
			}
		}
		c.Close()
	}
}

// A frame that arrives a byte at a time is still one frame.
func TestRawFrameInPiecesIsOneCall(t *testing.T) {
	count(t)
	v := vectors(t)["raw-request-5"]
	c, err := net.Dial("tcp", listen(t, "raw"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	for _, b := range v.data {
		c.Write([]byte{b})
		time.Sleep(time.Millisecond)
	}
	got := make([]byte, 4)
	if _, err := io.ReadFull(c, got); err != nil || hex.EncodeToString(got) != "05000000" {
		t.Errorf("got %x (%v)", got, err)
	}
}

func TestGrpcMessagesEncodeAsSpecified(t *testing.T) {
	count(t)
	for _, v := range vectors(t) {
		if v.stack != "grpc" {
			continue
		}
		if v.what == "request" {
			var p wrapperspb.BytesValue
			if err := proto.Unmarshal(v.data, &p); err != nil || len(p.GetValue()) != v.n {
				t.Errorf("%s: decoded %d bytes (%v), want %d", v.name, len(p.GetValue()), err, v.n)
			}
		} else {
			b, err := proto.Marshal(wrapperspb.UInt32(uint32(v.n)))
			if err != nil || !bytes.Equal(b, v.data) {
				t.Errorf("%s: encoded %x (%v), want %x", v.name, b, err, v.data)
			}
		}
	}
}

// server is the server as toll runs it: a child process on pipes.
type server struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func start(t *testing.T) *server {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "TOLL_RPC_SERVER=1")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd, in, bufio.NewScanner(out)}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	return s
}

func (s *server) ask(t *testing.T, line string) map[string]any {
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
	if !s.out.Scan() {
		t.Fatalf("no answer to %s", line)
	}
	var a map[string]any
	if err := json.Unmarshal(s.out.Bytes(), &a); err != nil {
		t.Fatalf("answer %q: %v", s.out.Text(), err)
	}
	return a
}

func (s *server) serve(t *testing.T, stack string) string {
	a := s.ask(t, `{"op":"serve","stack":"`+stack+`","host":"127.0.0.1","port":0}`)
	if a["ok"] != true || a["event"] != "listening" || a["stack"] != stack {
		t.Fatalf("serve %s: %v", stack, a)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(int(a["port"].(float64))))
}

func post(t *testing.T, client *http.Client, url string, n int) {
	r, err := client.Post(url, "application/octet-stream", bytes.NewReader(bytes.Repeat([]byte("x"), n)))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	if r.StatusCode != 200 || r.Header.Get("toll-received") != strconv.Itoa(n) {
		t.Errorf("POST %s n=%d: %s, toll-received %q", url, n, r.Status, r.Header.Get("toll-received"))
	}
}

func TestEveryStackAnswersARealCall(t *testing.T) {
	count(t)
	s := start(t)
	hello := s.ask(t, `{"op":"hello"}`)
	if hello["ok"] != true || hello["runtime"] != "go" || hello["rpc"] != float64(1) ||
		fmt.Sprint(hello["stacks"]) != "[raw http1 h2 grpc]" || !strings.Contains(hello["version"].(string), "grpc-go") {
		t.Fatalf("hello: %v", hello)
	}
	before := s.ask(t, `{"op":"stats"}`)

	raw, err := net.Dial("tcp", s.serve(t, "raw"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	raw.Write([]byte{3, 0, 0, 0, 'a', 'b', 'c'})
	got := make([]byte, 4)
	if _, err := io.ReadFull(raw, got); err != nil || got[0] != 3 {
		t.Errorf("raw: %x %v", got, err)
	}

	h1 := &http.Client{Timeout: 5 * time.Second}
	url1 := "http://" + s.serve(t, "http1")
	post(t, h1, url1+"/call", 0)
	post(t, h1, url1+"/call", 1000)
	if r, err := h1.Get(url1 + "/call"); err != nil || r.StatusCode != 404 {
		t.Errorf("GET /call: %v %v", r, err)
	}

	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	h2 := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Protocols: &p}}
	url2 := "http://" + s.serve(t, "h2")
	post(t, h2, url2+"/call", 0)
	post(t, h2, url2+"/call", 70000) // more than one DATA frame
	// The h2 stack does not speak HTTP/1.1: a mismatch shows at once.
	if r, err := h1.Post(url2+"/call", "", nil); err == nil && r.StatusCode == 200 {
		t.Errorf("the h2 stack answered HTTP/1.1")
	}

	conn, err := grpc.NewClient(s.serve(t, "grpc"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, n := range []int{0, 5} {
		ack := new(wrapperspb.UInt32Value)
		in := wrapperspb.Bytes(bytes.Repeat([]byte("x"), n))
		if err := conn.Invoke(ctx, "/toll.rpc.v1.Null/Call", in, ack); err != nil || ack.GetValue() != uint32(n) {
			t.Errorf("grpc n=%d: %v %v", n, ack, err)
		}
	}

	after := s.ask(t, `{"op":"stats"}`)
	// raw 1, http1 2, h2 2, grpc 2 (the 404 and the refused HTTP/1.1 are not calls)
	if d := after["calls"].(float64) - before["calls"].(float64); d != 7 {
		t.Errorf("stats counted %v calls, want 7", d)
	}
	if after["cpu_ns"].(float64) <= 0 || after["cpu_ns"].(float64) < before["cpu_ns"].(float64) {
		t.Errorf("cpu_ns: %v then %v", before["cpu_ns"], after["cpu_ns"])
	}
}

func TestBadCommandsAreRefusedAndExitStops(t *testing.T) {
	count(t)
	s := start(t)
	for _, line := range []string{`{"op":"dance"}`, `{"op":"serve","stack":"smtp"}`, `not json`,
		`{"op":"serve","stack":"raw","host":"127.0.0.1","port":99999}`} {
		if a := s.ask(t, line); a["ok"] != false || a["error"] == "" {
			t.Errorf("%s: %v", line, a)
		}
	}
	s.in.Write([]byte(`{"op":"exit"}` + "\n"))
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("the server did not stop on exit")
	}
}

func TestEndOfInputStops(t *testing.T) {
	count(t)
	s := start(t)
	s.serve(t, "grpc")
	s.in.Close()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Error("the server outlived its stdin")
	}
}
