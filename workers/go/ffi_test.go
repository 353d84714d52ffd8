package main

import (
	"fmt"
	"strconv"
	"testing"
)

// TestFfiSumVectors: the cgo binding returns spec/vectors/ffi.tsv's sums
// (skipped, saying why, in a build without cgo).
func TestFfiSumVectors(t *testing.T) {
	count(t)
	if _, ok := ffiBindings["cgo"]; !ok {
		t.Skip("built without cgo: install a C compiler (apt-get install gcc)")
	}
	vs := rows(t, "ffi.tsv")
	if len(vs) < 8 {
		t.Fatal("too few ffi vectors")
	}
	for _, v := range vs {
		n, _ := strconv.ParseInt(v[1], 10, 64)
		seed, _ := strconv.ParseInt(v[2], 10, 64)
		want, _ := strconv.ParseUint(v[3], 10, 64)
		a := ffi(command{Op: "ffi", Binding: "cgo", N: &n, Reps: ptr(3), Seed: &seed})
		if a["ok"] != true || a["sum"] != want || a["ns"].(int64) <= 0 {
			t.Errorf("%s: %v, want sum %d", v[0], a, want)
		}
	}
}

// TestFfiReceiptVectors: every way of the cgo binding returns
// spec/vectors/ffi_receipt.tsv's receipts, and the string way's sum.
func TestFfiReceiptVectors(t *testing.T) {
	count(t)
	if _, ok := ffiBindings["cgo"]; !ok {
		t.Skip("built without cgo: install a C compiler (apt-get install gcc)")
	}
	vs := rows(t, "ffi_receipt.tsv")
	if len(vs) < 8 {
		t.Fatal("too few receipt vectors")
	}
	for _, pass := range []string{"pinned", "copied", "string"} {
		for _, v := range vs {
			n, _ := strconv.ParseInt(v[1], 10, 64)
			seed, _ := strconv.ParseInt(v[2], 10, 64)
			col := 3
			if pass == "string" {
				col = 4
			}
			want, _ := strconv.ParseUint(v[col], 10, 64)
			a := ffi(command{Op: "ffi", Binding: "cgo", Pass: pass, Touch: "receipt", N: &n, Reps: ptr(3), Seed: &seed})
			if a["ok"] != true || a["receipt"] != want {
				t.Errorf("%s %s: %v, want receipt %d", pass, v[0], a, want)
			}
		}
	}
	n, seed, want := int64(1000), int64(42), uint64(0)
	for _, b := range []byte(textPattern(n, seed)) {
		want += uint64(b)
	}
	a := ffi(command{Op: "ffi", Binding: "cgo", Pass: "string", Touch: "all", N: &n, Reps: ptr(1), Seed: &seed})
	if a["sum"] != want {
		t.Errorf("string sum: %v, want %d", a, want)
	}
	a = ffi(command{Op: "ffi", Binding: "cgo", Pass: "lent", N: &n, Reps: ptr(1), Seed: &seed})
	if a["ok"] != false {
		t.Errorf("an unknown way is not refused: %v", a)
	}
}

// The callback counts every upcall.
func TestFfiCallbackCounts(t *testing.T) {
	count(t)
	if _, ok := ffiBindings["cgo"]; !ok {
		t.Skip("built without cgo: install a C compiler (apt-get install gcc)")
	}
	for _, n := range []int64{0, 1, 2, 1000} {
		a := ffi(command{Op: "ffi", Binding: "cgo", Pass: "callback", N: &n, Reps: ptr(3), Seed: ptr(0)})
		if a["ok"] != true || a["count"] != uint64(n) {
			t.Errorf("callback, n = %d: %v", n, a)
		}
	}
}

func TestFfiHelloOffersCgoAndRefusesWhatItLacks(t *testing.T) {
	count(t)
	w := start(t)
	h := w.ask(t, `{"op":"hello"}`)
	if fmt.Sprint(h["bindings"]) != fmt.Sprint(ffiNames()) {
		t.Errorf("hello's bindings %v, this build's %v", h["bindings"], ffiNames())
	}
	a := w.ask(t, `{"op":"ffi","binding":"jni","n":0,"reps":1,"seed":0}`)
	if a["ok"] != false || a["error"] != "no binding jni: the go worker has cgo" {
		t.Errorf("%v", a)
	}
}

func ptr(v int64) *int64 { return &v }
