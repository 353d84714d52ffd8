// E5's loop: 64-bit %, +, *4 and /2, n times (n from the command line,
// default 10^8, E5's), the result printed so nothing can be skipped.
package main

import (
	"fmt"
	"os"
	"strconv"
)

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
	var acc int64
	for i := int64(0); i < n; i++ {
		acc = (acc + i) % 1000003
		acc = acc * 4
		acc = acc / 2
	}
	fmt.Println(acc)
}
