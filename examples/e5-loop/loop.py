"""E5's loop: 64-bit %, +, *4 and /2, n times (n from the command line,
default 10^8, E5's), the result printed so nothing can be skipped.
A second argument of 6/3 runs E5's variant, *6 and /3 instead; each loop
has its constants written in, as E5's had."""
import sys


def loop42(n):
    acc = 0
    for i in range(n):
        acc = (acc + i) % 1000003
        acc = acc * 4
        acc = acc // 2
    return acc


def loop63(n):
    acc = 0
    for i in range(n):
        acc = (acc + i) % 1000003
        acc = acc * 6
        acc = acc // 3
    return acc


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000_000
    variant = sys.argv[2] if len(sys.argv) > 2 else "4/2"
    if variant == "4/2":
        acc = loop42(n)
    elif variant == "6/3":
        acc = loop63(n)
    else:
        print("loop: the variant is 4/2 (E5's loop) or 6/3, not " + variant, file=sys.stderr)
        sys.exit(2)
    print(acc)


main()
