/* E5's loop: 64-bit %, +, *4 and /2, n times (n from the command line,
 * default 10^8, E5's), the result printed so nothing can be skipped.
 * A second argument of 6/3 runs E5's variant, *6 and /3 instead; each
 * loop has its constants written in, as E5's had, so the compiler sees
 * them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long long loop42(long long n) {
    long long acc = 0;
    for (long long i = 0; i < n; i++) {
        acc = (acc + i) % 1000003;
        acc = acc * 4;
        acc = acc / 2;
    }
    return acc;
}

static long long loop63(long long n) {
    long long acc = 0;
    for (long long i = 0; i < n; i++) {
        acc = (acc + i) % 1000003;
        acc = acc * 6;
        acc = acc / 3;
    }
    return acc;
}

int main(int argc, char **argv) {
    long long n = argc > 1 ? atoll(argv[1]) : 100000000LL;
    const char *variant = argc > 2 ? argv[2] : "4/2";
    long long acc;
    if (strcmp(variant, "4/2") == 0) {
        acc = loop42(n);
    } else if (strcmp(variant, "6/3") == 0) {
        acc = loop63(n);
    } else {
        fprintf(stderr, "loop: the variant is 4/2 (E5's loop) or 6/3, not %s\n", variant);
        return 2;
    }
    printf("%lld\n", acc);
    return 0;
}
