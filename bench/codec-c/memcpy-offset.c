// How fast can 20,000 bytes (ffi-array-int's payload) be copied when the destination is
// not 32-byte aligned relative to the source? The ffire encoding puts the int32 array 2
// bytes after its u16 count, while a host array is 4-byte aligned, so the codec's copy
// (encode: host array -> out + 2; owned decode: input + 2 -> arena) always has source
// and destination 2 bytes apart modulo 4, whereas the bench's memcpy baseline copies
// between placements 2 KiB apart (aligned). docs/benchmarks/history.md "#14 C, 2026-11-24
// session 3".
//
//   gcc -std=c11 -O2 bench/codec-c/memcpy-offset.c -o /tmp/memcpy-offset && /tmp/memcpy-offset
//
// Prints, per distance (destination - source) modulo 4 KiB: the best of 200 × 100 copies
// in ns for glibc memcpy (rep movsb above 2,112 bytes on this machine), for memcpy in
// 2 KiB pieces (glibc's vector loop, below the rep movsb threshold), for an SSE2 loop
// (unaligned loads, aligned stores) and for the C runtime's wl_copy (memcpy, or 64-byte
// blocks at distances 1-31, where rep movsb aliases: docs/benchmarks/history.md "#14 session 9").
#define _POSIX_C_SOURCE 200809L
#include <emmintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../runtime/c/wirelens.h"

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

__attribute__((noinline)) static void plain(uint8_t *d, const uint8_t *s, size_t n) { memcpy(d, s, n); }

__attribute__((noinline)) static void runtime(uint8_t *d, const uint8_t *s, size_t n) { wl_copy(d, s, n); }

__attribute__((noinline)) static void pieces(uint8_t *d, const uint8_t *s, size_t n) {
    for (; n > 2048; d += 2048, s += 2048, n -= 2048) memcpy(d, s, 2048);
    memcpy(d, s, n);
}

__attribute__((noinline)) static void sse2(uint8_t *d, const uint8_t *s, size_t n) {
    uint8_t *end = d + n;
    size_t skip = 16 - ((uintptr_t)d & 15);
    __m128i t0 = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 32));
    __m128i t1 = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16));
    _mm_storeu_si128((__m128i *)(void *)d, _mm_loadu_si128((const __m128i *)(const void *)s));
    for (d += skip, s += skip; d + 64 <= end; d += 64, s += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + 48));
        _mm_store_si128((__m128i *)(void *)d, a);
        _mm_store_si128((__m128i *)(void *)(d + 16), b);
        _mm_store_si128((__m128i *)(void *)(d + 32), c);
        _mm_store_si128((__m128i *)(void *)(d + 48), e);
    }
    for (; d + 16 <= end; d += 16, s += 16) _mm_store_si128((__m128i *)(void *)d, _mm_loadu_si128((const __m128i *)(const void *)s));
    _mm_storeu_si128((__m128i *)(void *)(end - 32), t0);
    _mm_storeu_si128((__m128i *)(void *)(end - 16), t1);
}

static double best(void (*f)(uint8_t *, const uint8_t *, size_t), uint8_t *d, const uint8_t *s, size_t n) {
    double b = 1e300;
    for (int r = 0; r < 200; r++) {
        double t0 = now_ns();
        for (int i = 0; i < 100; i++) {
            f(d, s, n);
            __asm__ volatile("" : : "r"(d) : "memory");
        }
        double t = (now_ns() - t0) / 100;
        if (t < b) b = t;
    }
    return b;
}

int main(void) {
    const size_t n = 20000;
    static const long dist[] = {2048, 2050, 2052, 2064, 2066, 258, 34, 32, 24, 16, 14, 2, 1, 0};
    uint8_t *src = aligned_alloc(4096, n + 8192), *dst = aligned_alloc(4096, n + 8192);
    if (!src || !dst) return 1;
    for (size_t i = 0; i < n + 8192; i++) src[i] = (uint8_t)(i * 7), dst[i] = 0;
    printf("%8s %8s %8s %8s %8s\n", "distance", "memcpy", "2K-pieces", "sse2", "wl_copy");
    for (size_t k = 0; k < sizeof dist / sizeof dist[0]; k++) {
        const uint8_t *s = src + 64;
        uint8_t *d = dst + 64 + dist[k];
        sse2(d, s, n);
        if (memcmp(d, s, n) != 0) return 1;
        memset(d, 0, n);
        runtime(d, s, n);
        if (memcmp(d, s, n) != 0) return 1;
        printf("%8ld %8.0f %8.0f %8.0f %8.0f\n", dist[k], best(plain, d, s, n), best(pieces, d, s, n), best(sse2, d, s, n),
               best(runtime, d, s, n));
    }
    return 0;
}
