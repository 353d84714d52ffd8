// The cgo binding of `ffi`: workers/ffi/toll_ffi.c compiled into this worker
// by cgo (the one shared source, included below), called as C.toll_ffi_sum
// and C.toll_ffi_receipt. Each call leaves the goroutine's stack for the
// system stack and tells the scheduler it is in C: that is what a cgo call
// costs. The ways: "pinned" passes the slice's own bytes (cgo's pointer
// rules let C read Go memory without Go pointers in it for the call);
// "copied" is C.CBytes (malloc + copy) and C.free each call; "string" is
// C.CString (malloc + copy + NUL) of a Go string and C.free each call;
// "callback" is C calling Go back (ffi_callback_cgo.go).
package main

/*
#cgo CFLAGS: -O2 -I${SRCDIR}/../ffi
#include <stdlib.h>
#include "toll_ffi.c"

*/
import "C"

import (
	"time"
	"unsafe"
)

func init() { ffiBindings["cgo"] = cgoCalls }

// cgoCalls makes the calls, one loop per (way, touch): the loop does
// nothing but the way's own work and the call. One call shape at every n,
// 0 included: a valid pointer (a slice of length 0 has no element to point
// at), no bytes.
func cgoCalls(pass, touch string, value any, reps int64) (int64, uint64, bool) {
	receipt := touch == "receipt"
	if !receipt && touch != "all" {
		return 0, 0, false
	}
	var last C.uint64_t
	t0 := time.Now()
	switch pass {
	case "callback":
		ns, count := cgoCallbacks(value.(int64), reps)
		return ns, count, true
	case "pinned":
		buf := value.([]byte)
		n := C.size_t(len(buf))
		if len(buf) == 0 {
			buf = make([]byte, 1)
		}
		p := (*C.uint8_t)(unsafe.Pointer(&buf[0]))
		t0 = time.Now()
		if receipt {
			for r := int64(0); r < reps; r++ {
				last = C.toll_ffi_receipt(p, n)
			}
		} else {
			for r := int64(0); r < reps; r++ {
				last = C.toll_ffi_sum(p, n)
			}
		}
	case "copied":
		buf := value.([]byte)
		n := C.size_t(len(buf))
		for r := int64(0); r < reps; r++ {
			p := C.CBytes(buf)
			if receipt {
				last = C.toll_ffi_receipt((*C.uint8_t)(p), n)
			} else {
				last = C.toll_ffi_sum((*C.uint8_t)(p), n)
			}
			C.free(p)
		}
	case "string":
		s := value.(string)
		n := C.size_t(len(s))
		for r := int64(0); r < reps; r++ {
			p := C.CString(s)
			if receipt {
				last = C.toll_ffi_receipt((*C.uint8_t)(unsafe.Pointer(p)), n)
			} else {
				last = C.toll_ffi_sum((*C.uint8_t)(unsafe.Pointer(p)), n)
			}
			C.free(unsafe.Pointer(p))
		}
	default:
		return 0, 0, false
	}
	return int64(time.Since(t0)), uint64(last), true
}
