// `ffi` (spec/wire.md): reps calls into workers/ffi/toll_ffi.c, timed with
// Go's monotonic clock. The one binding, cgo, lives in ffi_cgo.go, which Go
// compiles only when cgo is on (a C compiler on the machine when the worker
// was built); without it the worker offers no binding and says why.
package main

// ffiCalls makes reps calls passing value (a []byte, or a string for the
// "string" way) the way named, to the sum (touch "all") or the receipt, and
// gives their time and the last call's return; for "callback", value is
// the upcalls per call and the return their count. ok is false for a way
// or touch it does not know.
type ffiCalls func(pass, touch string, value any, reps int64) (ns int64, last uint64, ok bool)

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
	pass, touch := or(c.Pass, "pinned"), or(c.Touch, "all")
	// The value is made once per command, in the form Go code holds it.
	var value any = pattern(*c.N, *c.Seed)
	switch pass {
	case "string":
		value = textPattern(*c.N, *c.Seed)
	case "callback":
		value = *c.N // upcalls per call
	}
	ns, last, ok := calls(pass, touch, value, *c.Reps)
	if !ok {
		return refuse("cgo passes pinned, copied or string, or calls back, and touches all or receipt, not %s and %s", pass, touch)
	}
	key := "sum"
	switch {
	case pass == "callback":
		key = "count"
	case touch == "receipt":
		key = "receipt"
	}
	return object{"ok": true, "event": "done", "binding": c.Binding, "n": *c.N, "reps": *c.Reps,
		"ns": ns, key: last}
}

func or(s, absent string) string {
	if s == "" {
		return absent
	}
	return s
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

// textPattern is the string way's text: byte i = 1 + (pattern byte mod 127),
// ASCII without NUL.
func textPattern(n, seed int64) string {
	buf := pattern(n, seed)
	for i, b := range buf {
		buf[i] = 1 + b%127
	}
	return string(buf)
}
