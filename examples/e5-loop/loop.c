/* E5's loop: 64-bit %, +, *4 and /2, n times (n from the command line,
 * default 10^8, E5's), the result printed so nothing can be skipped. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    long long n = argc > 1 ? atoll(argv[1]) : 100000000LL;
    long long acc = 0;
    for (long long i = 0; i < n; i++) {
        acc = (acc + i) % 1000003;
        acc = acc * 4;
        acc = acc / 2;
    }
    printf("%lld\n", acc);
    return 0;
}
