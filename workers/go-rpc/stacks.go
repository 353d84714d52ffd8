package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"strconv"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// maxFrame is the longest raw payload; a longer one is a broken stream.
const maxFrame = 64 << 20

// noDelay sets TCP_NODELAY on every accepted connection (spec/rpc.md), so no
// stack's reply waits on Nagle's algorithm.
type noDelay struct{ *net.TCPListener }

func (l noDelay) Accept() (net.Conn, error) {
	c, err := l.AcceptTCP()
	if err != nil {
		return nil, err
	}
	c.SetNoDelay(true)
	return c, nil
}

func serveRaw(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go rawConn(c)
	}
}

// rawConn answers frames in order. Replies are flushed whenever the next
// frame is not already whole in the buffer, so pipelined frames get their
// replies in one write and a lone frame gets its own at once.
func rawConn(c net.Conn) {
	defer c.Close()
	r := bufio.NewReaderSize(c, 64<<10)
	w := bufio.NewWriterSize(c, 4<<10)
	var head, reply [4]byte
	for {
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return
		}
		n := binary.LittleEndian.Uint32(head[:])
		if n > maxFrame {
			return
		}
		got, err := r.Discard(int(n))
		if err != nil {
			return
		}
		calls.Add(1)
		binary.LittleEndian.PutUint32(reply[:], uint32(got))
		w.Write(reply[:])
		if !frameBuffered(r) {
			if w.Flush() != nil {
				return
			}
		}
	}
}

// frameBuffered says whether a whole next frame is already read, so
// answering it cannot block with replies still unsent.
func frameBuffered(r *bufio.Reader) bool {
	if r.Buffered() < 4 {
		return false
	}
	head, _ := r.Peek(4)
	return uint64(r.Buffered()) >= 4+uint64(binary.LittleEndian.Uint32(head))
}

// call is the http1 and h2 stacks' one route: POST /call.
func call(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/call" {
		http.NotFound(w, r)
		return
	}
	n, err := io.Copy(io.Discard, r.Body)
	if err != nil {
		return
	}
	calls.Add(1)
	w.Header().Set("toll-received", strconv.FormatInt(n, 10))
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(http.StatusOK)
}

func serveHTTP(l net.Listener, protocols *http.Protocols) {
	s := &http.Server{Handler: http.HandlerFunc(call), Protocols: protocols}
	s.Serve(l)
}

func serveHTTP1(l net.Listener) {
	var p http.Protocols
	p.SetHTTP1(true)
	serveHTTP(l, &p)
}

// serveH2 serves HTTP/2 with prior knowledge, from the standard library
// (Go 1.24's unencrypted HTTP/2): no upgrade, and no HTTP/1.1 either, so a
// client that speaks the wrong stack hears about it at once.
func serveH2(l net.Listener) {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	serveHTTP(l, &p)
}

// nullServer is the service of spec/rpc.proto. Payload{bytes data = 1} and
// Ack{uint32 received = 1} are on the wire exactly BytesValue and
// UInt32Value (one field, number 1, the same type), so the well-known types
// stand in for generated code and grpc-go's own protobuf codec does the work.
type nullServer interface {
	Call(context.Context, *wrapperspb.BytesValue) (*wrapperspb.UInt32Value, error)
}

type null struct{}

func (null) Call(_ context.Context, p *wrapperspb.BytesValue) (*wrapperspb.UInt32Value, error) {
	calls.Add(1)
	return wrapperspb.UInt32(uint32(len(p.GetValue()))), nil
}

func callHandler(srv any, ctx context.Context, dec func(any) error, icpt grpc.UnaryServerInterceptor) (any, error) {
	in := new(wrapperspb.BytesValue)
	if err := dec(in); err != nil {
		return nil, err
	}
	return srv.(nullServer).Call(ctx, in)
}

var nullDesc = grpc.ServiceDesc{
	ServiceName: "toll.rpc.v1.Null",
	HandlerType: (*nullServer)(nil),
	Methods:     []grpc.MethodDesc{{MethodName: "Call", Handler: callHandler}},
	Metadata:    "spec/rpc.proto",
}

func serveGRPC(l net.Listener) {
	s := grpc.NewServer(grpc.MaxRecvMsgSize(maxFrame + 16))
	s.RegisterService(&nullDesc, null{})
	s.Serve(l)
}
