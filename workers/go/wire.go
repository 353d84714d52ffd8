// The data plane of spec/wire.md: request frames in, one 24-byte reply out
// per frame, read through a buffer so a small frame costs one read.
package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
)

const (
	kindData     = 1
	kindEnd      = 2
	statusOK     = 0
	statusBad    = 1
	headerLen    = 16
	replyLen     = 24
	bufLen       = 256 * 1024
	requestMagic = "TOLL"
	replyMagic   = "TOLR"
)

// fault is TOLL_WORKER_FAULT: exit:K or garbage:K (kind "" means none).
type fault struct {
	kind string
	k    uint64
}

var faultPattern = regexp.MustCompile(`^(exit|garbage):(\d+)$`)

func parseFault(text string) fault {
	m := faultPattern.FindStringSubmatch(text)
	if m == nil {
		return fault{}
	}
	k, err := strconv.ParseUint(m[2], 10, 64)
	if err != nil {
		return fault{}
	}
	return fault{kind: m[1], k: k}
}

// header is a decoded request header.
type header struct {
	magicOK bool
	kind    uint32
	seq     uint32
	count   uint32
}

func decodeHeader(b []byte) header {
	return header{
		magicOK: string(b[0:4]) == requestMagic,
		kind:    binary.LittleEndian.Uint32(b[4:8]),
		seq:     binary.LittleEndian.Uint32(b[8:12]),
		count:   binary.LittleEndian.Uint32(b[12:16]),
	}
}

func encodeReply(b []byte, status, seq, count uint32, sum int64) []byte {
	copy(b[0:4], replyMagic)
	binary.LittleEndian.PutUint32(b[4:8], status)
	binary.LittleEndian.PutUint32(b[8:12], seq)
	binary.LittleEndian.PutUint32(b[12:16], count)
	binary.LittleEndian.PutUint64(b[16:24], uint64(sum))
	return b[:replyLen]
}

// served counts what a transfer carried.
type served struct {
	frames uint64
	items  uint64
}

// errEarlyEOF is a data channel that ended before the END frame.
var errEarlyEOF = errors.New("data channel closed before the END frame")

// reader is a buffer that frames are parsed out of.
type reader struct {
	in         io.Reader
	buf        []byte
	start, end int
}

// fill reads more, keeping what is unconsumed; false at end of stream.
func (r *reader) fill() (bool, error) {
	if r.start > 0 {
		r.end = copy(r.buf, r.buf[r.start:r.end])
		r.start = 0
	}
	n, err := r.in.Read(r.buf[r.end:])
	r.end += n
	if n > 0 {
		return true, nil
	}
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, nil
}

// need makes at least n bytes available.
func (r *reader) need(n int) error {
	for r.end-r.start < n {
		more, err := r.fill()
		if err != nil {
			return err
		}
		if !more {
			return errEarlyEOF
		}
	}
	return nil
}

// serve answers request frames from in on out until END or a bad frame.
func serve(in io.Reader, out io.Writer, f fault) (served, error) {
	r := &reader{in: in, buf: make([]byte, bufLen)}
	var s served
	var expected uint32
	reply := make([]byte, replyLen)
	for {
		if err := r.need(headerLen); err != nil {
			return s, err
		}
		h := decodeHeader(r.buf[r.start : r.start+headerLen])
		r.start += headerLen
		if !h.magicOK || (h.kind != kindData && h.kind != kindEnd) || h.seq != expected {
			_, err := out.Write(encodeReply(reply, statusBad, h.seq, 0, 0))
			return s, err
		}
		if h.kind == kindEnd {
			_, err := out.Write(encodeReply(reply, statusOK, h.seq, 0, 0))
			return s, err
		}
		if f.kind == "exit" && uint64(h.count) >= f.k {
			os.Exit(3)
		}
		sum, err := r.sumItems(uint64(h.count) * 4)
		if err != nil {
			return s, err
		}
		var rep []byte
		if f.kind == "garbage" && uint64(h.count) >= f.k {
			rep = make([]byte, replyLen)
			for i := range rep {
				rep[i] = 0xAB
			}
		} else {
			rep = encodeReply(reply, statusOK, h.seq, h.count, sum)
		}
		if _, err := out.Write(rep); err != nil {
			return s, err
		}
		s.frames++
		s.items += uint64(h.count)
		expected++
	}
}

// sumItems consumes `left` bytes of int32 items and sums them.
func (r *reader) sumItems(left uint64) (int64, error) {
	var sum int64
	for left > 0 {
		if r.end-r.start < 4 {
			if err := r.need(4); err != nil {
				return 0, err
			}
		}
		avail := uint64(r.end-r.start) &^ 3
		if avail > left {
			avail = left
		}
		b := r.buf[r.start : r.start+int(avail)]
		for i := 0; i+4 <= len(b); i += 4 {
			sum += int64(int32(binary.LittleEndian.Uint32(b[i:])))
		}
		r.start += int(avail)
		left -= avail
	}
	return sum, nil
}

func describe(err error) string {
	return fmt.Sprintf("data channel: %v", err)
}
