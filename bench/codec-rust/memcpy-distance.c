/* memcpy of 20,000 bytes (ffi-array-int's size) at chosen distances between destination and
 * source modulo 4 KiB and mutual alignments: why the codec bench places its reused buffers
 * (`apart`, `memcpy_target` in src/lib.rs; docs/benchmarks/history.md "#14 Rust, 2026-11-24
 * session 2").
 *
 *   gcc -O2 bench/codec-rust/memcpy-distance.c -o /tmp/memcpy-distance && /tmp/memcpy-distance
 *   GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=0x10000000 /tmp/memcpy-distance   # no rep movsb
 *
 * Prints the best of 200 × 100 copies per distance, in ns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static double best_copy(char *d, const char *s, size_t n) {
    double best = 1e18;
    for (int r = 0; r < 200; r++) {
        double t0 = now_ns();
        for (int k = 0; k < 100; k++) {
            memcpy(d, s, n);
            __asm__ volatile("" ::"r"(d) : "memory");
        }
        double t = (now_ns() - t0) / 100;
        if (t < best) best = t;
    }
    return best;
}

int main(void) {
    const size_t n = 20000, region = 1 << 20;
    char *a = aligned_alloc(4096, region), *b = aligned_alloc(4096, region);
    if (!a || !b) return 1;
    memset(a, 1, region);
    memset(b, 2, region);
    const int dist[] = {0, 1, 8, 16, 24, 31, 32, 48, 64, 128, 256, 1024, 2048, 2050, 2064, 4032, 4080};
    for (size_t i = 0; i < sizeof dist / sizeof *dist; i++) {
        printf("dst - src = %4d (mod 4096): %6.0f ns\n", dist[i], best_copy(b + dist[i], a, n));
    }
    return 0;
}
