"""E5's loop: 64-bit %, +, *4 and /2, n times (n from the command line,
default 10^8, E5's), the result printed so nothing can be skipped."""
import sys


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000_000
    acc = 0
    for i in range(n):
        acc = (acc + i) % 1000003
        acc = acc * 4
        acc = acc // 2
    print(acc)


main()
