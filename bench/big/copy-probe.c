// Does a big copy gain from non-temporal stores or huge pages? (issue 32 item 3)
//
//   gcc -O2 -o /tmp/copy-probe bench/big/copy-probe.c && /tmp/copy-probe [ROUNDS]
//
// Copies N bytes (64 MiB and 512 MiB: below and above this machine's 300 MiB last-level
// cache) from one reused buffer into another with: glibc memcpy; a loop of 16-byte
// non-temporal stores (_mm_stream_si128, SSE2: no -march needed) and an sfence; a loop of
// 64-byte ordinary stores (the runtimes' wl__copy_blocks / copy_blocks, used where
// `rep movsb` would alias). Buffers are 2 MiB-aligned mmaps, touched before timing, with
// and without madvise(MADV_HUGEPAGE) (the kernel's THP mode here is "madvise": without it,
// 4 KiB pages); the destination 2 KiB from the source modulo 4 KiB. Prints the median
// GB/s of ROUNDS (default 9) interleaved rounds per row, and how much of each buffer the
// kernel backed with huge pages (AnonHugePages of /proc/self/smaps).
#define _GNU_SOURCE
#include <emmintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void copy_nt(uint8_t *d, const uint8_t *s, size_t n) {
    size_t head = (16 - ((uintptr_t)d & 15)) & 15, i;
    memcpy(d, s, head);
    for (i = head; i + 64 <= n; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(s + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(s + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(s + i + 48));
        _mm_stream_si128((__m128i *)(d + i), a);
        _mm_stream_si128((__m128i *)(d + i + 16), b);
        _mm_stream_si128((__m128i *)(d + i + 32), c);
        _mm_stream_si128((__m128i *)(d + i + 48), e);
    }
    _mm_sfence();
    memcpy(d + i, s + i, n - i);
}

static void copy_blocks(uint8_t *d, const uint8_t *s, size_t n) {
    size_t i = 64 - ((uintptr_t)d & 63);
    memcpy(d, s, 64);
    for (; n - i >= 64; i += 64) {
        memcpy(d + i, s + i, 64);
        __asm__("" : "+r"(i));
    }
    memcpy(d + n - 64, s + n - 64, 64);
}

static void copy_memcpy(uint8_t *d, const uint8_t *s, size_t n) { memcpy(d, s, n); }

static uint8_t *region(size_t n, int huge, void **base, size_t *len_out) {
    size_t len = n + (4 << 20);
    uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    *base = p;
    *len_out = len;
    uint8_t *a = (uint8_t *)(((uintptr_t)p + (2 << 20) - 1) & ~(uintptr_t)((2 << 20) - 1));
    if (huge && madvise(a, n + 4096, MADV_HUGEPAGE) != 0) perror("madvise");
    memset(a, 1, n + 4096);
    return a;
}

// kB of huge pages backing [p, p + n) (the smaps entry containing p).
static long huge_kb(const void *p) {
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    int in = 0;
    long kb = -1;
    if (!f) return -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') == line + strspn(line, "0123456789abcdef")) {
            in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
        } else if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1) {
            break;
        }
    }
    fclose(f);
    return kb;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// The runtimes copy long arrays in 64-byte blocks instead of memcpy where `rep movsb`
// would alias (destination 1-31 bytes above the source modulo 4 KiB; glibc bug 30994, AMD
// Zen 3/4). Is that still a gain for big copies on this machine? memcpy at distance 2048
// and 12, blocks at 12, per size (the median of `rounds` rounds of enough copies).
static void aliasing(int rounds) {
    size_t sizes[] = {20000, 1u << 20, 64u << 20};
    for (int si = 0; si < 3; si++) {
        size_t n = sizes[si];
        void *sb, *db;
        size_t sl, dl;
        uint8_t *s = region(n, 0, &sb, &sl), *d = region(n + 4096, 0, &db, &dl);
        int reps = (int)((256u << 20) / n);
        double t[3][64];
        for (int r = 0; r < rounds && r < 64; r++)
            for (int k = 0; k < 3; k++) {
                double t0 = now();
                for (int i = 0; i < reps; i++) {
                    if (k == 0) copy_memcpy(d + 2048, s, n);
                    else if (k == 1) copy_memcpy(d + 12, s, n);
                    else copy_blocks(d + 12, s, n);
                    __asm__ volatile("" : : "r"(d) : "memory");
                }
                t[k][r] = (now() - t0) / reps;
            }
        const char *names[] = {"memcpy, distance 2048", "memcpy, distance 12", "blocks, distance 12"};
        for (int k = 0; k < 3; k++) {
            qsort(t[k], (size_t)rounds, sizeof(double), cmp);
            printf("%9zu B  %-22s %6.2f GB/s (best %6.2f)\n", n, names[k], (double)n / t[k][rounds / 2] / 1e9,
                   (double)n / t[k][0] / 1e9);
        }
        munmap(sb, sl);
        munmap(db, dl);
    }
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 9;
    aliasing(rounds);
    size_t sizes[] = {64u << 20, 512u << 20};
    const char *names[] = {"memcpy", "nt-stores", "blocks"};
    void (*fns[])(uint8_t *, const uint8_t *, size_t) = {copy_memcpy, copy_nt, copy_blocks};
    for (int si = 0; si < 2; si++) {
        size_t n = sizes[si];
        for (int huge = 0; huge < 2; huge++) {
            void *sb, *db;
            size_t sl, dl;
            uint8_t *s = region(n, huge, &sb, &sl), *d = region(n, huge, &db, &dl) + 2048;
            double t[3][64];
            for (int r = 0; r < rounds && r < 64; r++)
                for (int k = 0; k < 3; k++) {
                    int i = (k + r) % 3;
                    double t0 = now();
                    fns[i](d, s, n);
                    __asm__ volatile("" : : "r"(d) : "memory");
                    t[i][r] = now() - t0;
                }
            for (int i = 0; i < 3; i++) {
                qsort(t[i], (size_t)rounds, sizeof(double), cmp);
                printf("%4zu MiB  %-9s %-10s %6.2f GB/s (best %6.2f)   (huge pages: src %ld kB, dst %ld kB)\n",
                       n >> 20, huge ? "madvise" : "4k-pages", names[i], (double)n / t[i][rounds / 2] / 1e9,
                       (double)n / t[i][0] / 1e9, huge_kb(s), huge_kb(d));
            }
            munmap(sb, sl);
            munmap(db, dl);
        }
    }
    return 0;
}
