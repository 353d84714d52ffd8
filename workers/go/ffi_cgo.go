// The cgo binding of `ffi`: workers/ffi/toll_ffi.c compiled into this worker
// by cgo (the one shared source, included below), called as C.toll_ffi_null
// and C.toll_ffi_sum. Each call leaves the goroutine's stack for the system
// stack and tells the scheduler it is in C: that is what a cgo call costs.
package main

/*
#cgo CFLAGS: -O2 -I${SRCDIR}/../ffi
#include "toll_ffi.c"
*/
import "C"

import (
	"time"
	"unsafe"
)

func init() { ffiBindings["cgo"] = cgoCalls }

// cgoCalls passes the slice's own bytes (cgo's pointer rules allow a Go
// pointer to memory without Go pointers in it): no copy.
// One call shape at every n, 0 included: a sum of no bytes, passed a
// valid pointer (a slice of length 0 has no element to point at).
func cgoCalls(buf []byte, reps int64) (int64, uint64) {
	n := C.size_t(len(buf))
	if len(buf) == 0 {
		buf = make([]byte, 1)
	}
	p := (*C.uint8_t)(unsafe.Pointer(&buf[0]))
	var sum C.uint64_t
	t0 := time.Now()
	for r := int64(0); r < reps; r++ {
		sum = C.toll_ffi_sum(p, n)
	}
	return int64(time.Since(t0)), uint64(sum)
}
