/* The C worker's `ffi` against spec/vectors/ffi.tsv and ffi_receipt.tsv:
   both bindings return the pattern's sum for every vector, and its receipt
   passed pinned and copied, and their callbacks count every upcall
   (TOLL_FFI_DIR names where the Makefile built libtoll_ffi.so).
   Usage: test_ffi VECTORS_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ffi.h"

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_ffi VECTORS_DIR\n");
        return 2;
    }
    char path[4096], line[512], name[64], out[512];
    snprintf(path, sizeof path, "%s/ffi.tsv", argv[1]);
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return 2;
    }
    const char *bindings[] = {"direct", "dlopen"};
    int checked = 0, failed = 0;
    while (fgets(line, sizeof line, f)) {
        long n, seed;
        unsigned long long want;
        if (line[0] == '#' || sscanf(line, "%63s %ld %ld %llu", name, &n, &seed, &want) != 4) continue;
        for (int b = 0; b < 2; b++) {
            ffi_run(bindings[b], "pinned", "all", n, 3, seed, out, sizeof out);
            const char *s = strstr(out, "\"sum\":");
            unsigned long long got = s ? strtoull(s + 6, NULL, 10) : ~0ull;
            if (!strstr(out, "\"ok\":true") || got != want) {
                fprintf(stderr, "ffi %s %s: want sum %llu, got %s\n", bindings[b], name, want, out);
                failed++;
            }
            checked++;
        }
    }
    fclose(f);
    int sums = checked;
    snprintf(path, sizeof path, "%s/ffi_receipt.tsv", argv[1]);
    if (!(f = fopen(path, "r"))) {
        perror(path);
        return 2;
    }
    const char *passes[] = {"pinned", "copied"};
    while (fgets(line, sizeof line, f)) {
        long n, seed;
        unsigned long long want, string;
        if (line[0] == '#' || sscanf(line, "%63s %ld %ld %llu %llu", name, &n, &seed, &want, &string) != 5) continue;
        for (int b = 0; b < 2; b++)
            for (int p = 0; p < 2; p++) {
                ffi_run(bindings[b], passes[p], "receipt", n, 3, seed, out, sizeof out);
                const char *s = strstr(out, "\"receipt\":");
                unsigned long long got = s ? strtoull(s + 10, NULL, 10) : ~0ull;
                if (!strstr(out, "\"ok\":true") || got != want) {
                    fprintf(stderr, "ffi %s %s %s: want receipt %llu, got %s\n", bindings[b], passes[p], name, want, out);
                    failed++;
                }
                checked++;
            }
    }
    fclose(f);
    ffi_run("direct", "string", "receipt", 1, 1, 0, out, sizeof out);
    if (!strstr(out, "already a char *")) {
        fprintf(stderr, "the string way is not refused naming why: %s\n", out);
        failed++;
    }
    int counts = 0;
    const long upcalls[] = {0, 1, 2, 1000};
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < 4; i++) {
            ffi_run(bindings[b], "callback", "receipt", upcalls[i], 3, 0, out, sizeof out);
            const char *s = strstr(out, "\"count\":");
            long got = s ? strtol(s + 8, NULL, 10) : -1;
            if (!strstr(out, "\"ok\":true") || got != upcalls[i]) {
                fprintf(stderr, "ffi %s callback: want count %ld, got %s\n", bindings[b], upcalls[i], out);
                failed++;
            }
            counts++;
        }
    if (failed || checked == sums) return 1;
    printf("c worker ffi: %d sum vectors, %d receipt vectors, %d callback counts passed (direct, dlopen; pinned, "
           "copied, callback)\n",
           sums, checked - sums, counts);
    return 0;
}
