// `ffi` (spec/wire.md): reps calls into workers/ffi/toll_ffi.c, timed with
// Go's monotonic clock. The one binding, cgo, lives in ffi_cgo.go, which Go
// compiles only when cgo is on (a C compiler on the machine when the worker
// was built); without it the worker offers no binding and says why.
package main

// ffiCalls makes reps calls, each passing buf (the null call when it is
// empty), and gives their time and the last call's return.
type ffiCalls func(buf []byte, reps int64) (ns int64, sum uint64)

// ffiBindings are the bindings this build can call; ffi_cgo.go adds cgo.
var ffiBindings = map[string]ffiCalls{}

func ffi(c command) object {
	if c.N == nil || c.Reps == nil || c.Seed == nil || *c.N < 0 || *c.Reps < 1 || *c.Seed < 0 {
		return refuse("`ffi` needs whole numbers n, reps (at least 1) and seed")
	}
	calls, ok := ffiBindings[c.Binding]
	switch {
	case c.Binding == "cgo" && !ok:
		return refuse("cgo: this go worker was built without cgo (no C compiler when it was built)")
	case !ok:
		return refuse("no binding %s: the go worker has cgo", c.Binding)
	}
	ns, sum := calls(pattern(*c.N, *c.Seed), *c.Reps)
	return object{"ok": true, "event": "done", "binding": c.Binding, "n": *c.N, "reps": *c.Reps,
		"ns": ns, "sum": sum}
}

// ffiNames lists the bindings hello offers: those this build can call.
func ffiNames() []string {
	names := []string{}
	if _, ok := ffiBindings["cgo"]; ok {
		names = append(names, "cgo")
	}
	return names
}

// pattern is spec/wire.md's n-byte buffer: byte i = (seed + 131·i) mod 256.
func pattern(n, seed int64) []byte {
	buf := make([]byte, n)
	for i := range buf {
		buf[i] = byte(seed + 131*int64(i))
	}
	return buf
}
