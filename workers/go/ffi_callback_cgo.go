// The cgo binding's callback: toll_ffi_callback (compiled in by
// ffi_cgo.go) calls the exported Go function tollGoUpcall back n times.
// Each upcall leaves C for Go: it switches from the system stack to a
// goroutine's, tells the scheduler the thread runs Go again, and goes back
// (cgocallback): the other half of what a cgo call costs. A file with
// //export may only declare C in its preamble, so this one is apart.
package main

/*
#include "toll_ffi.h"
extern void tollGoUpcall(void *);
*/
import "C"

import (
	"time"
	"unsafe"
)

// upcalls counts tollGoUpcall's calls since the last callback call began.
var upcalls uint64

//export tollGoUpcall
func tollGoUpcall(unsafe.Pointer) { upcalls++ }

// cgoCallbacks makes reps calls each calling Go back n times: their time
// and the last call's count.
func cgoCallbacks(n, reps int64) (int64, uint64) {
	t0 := time.Now()
	for r := int64(0); r < reps; r++ {
		upcalls = 0
		C.toll_ffi_callback((*[0]byte)(C.tollGoUpcall), nil, C.uint64_t(n))
	}
	return int64(time.Since(t0)), upcalls
}
