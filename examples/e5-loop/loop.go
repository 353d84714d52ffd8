// E5's loop: 64-bit %, +, *4 and /2, n times (n from the command line,
// default 10^8, E5's), the result printed so nothing can be skipped.
// A second argument of 6/3 runs E5's variant, *6 and /3 instead; each loop
// has its constants written in, as E5's had, so the compiler sees them.
package main

import (
	"fmt"
	"os"
	"strconv"
)

func loop42(n int64) int64 {
	var acc int64
	for i := int64(0); i < n; i++ {
		acc = (acc + i) % 1000003
		acc = acc * 4
		acc = acc / 2
	}
	return acc
}

func loop63(n int64) int64 {
	var acc int64
	for i := int64(0); i < n; i++ {
		acc = (acc + i) % 1000003
		acc = acc * 6
		acc = acc / 3
	}
	return acc
}

func main() {
	n := int64(100_000_000)
	if len(os.Args) > 1 {
		v, err := strconv.ParseInt(os.Args[1], 10, 64)
		if err != nil {
			fmt.Fprintln(os.Stderr, "loop: n must be a whole number")
			os.Exit(2)
		}
		n = v
	}
	variant := "4/2"
	if len(os.Args) > 2 {
		variant = os.Args[2]
	}
	var acc int64
	switch variant {
	case "4/2":
		acc = loop42(n)
	case "6/3":
		acc = loop63(n)
	default:
		fmt.Fprintln(os.Stderr, "loop: the variant is 4/2 (E5's loop) or 6/3, not "+variant)
		os.Exit(2)
	}
	fmt.Println(acc)
}
