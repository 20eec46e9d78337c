// libFuzzer harness for the generated C decoders of every golden schema (fuzz/c/run
// generates them and `targets.inc`, which lists one BYTE(module, Type) per struct or
// root type and one MESSAGE(module, Type) per SDP struct, in the order of the Rust
// target `rust_decode`, so its seeds serve here too). Two leading bytes pick the decoder.
// Built with clang -fsanitize=fuzzer,address,undefined: any out-of-bounds access,
// leak or undefined behaviour is a finding, and so is a failed CHECK:
// - decode, decode_view, decode_prefix, decode_view_prefix agree on success and length;
// - whatever decodes re-encodes (exact size, encode, encode_buf) to the same bytes;
// - SDP messages: the typed message decoders and the <module>_Message dispatcher agree.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "all.h"

#define CHECK(cond)                                                                          \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "CHECK failed in %s: %s (line %d)\n", __func__, #cond, __LINE__); \
            abort();                                                                         \
        }                                                                                    \
    } while (0)

// Re-encodes `v` with T_size, T_encode and T_encode_buf; each must give bytes[0..n).
#define REENCODE(T, v, bytes, n)                                                     \
    do {                                                                             \
        CHECK(T##_size(&(v)) == (n));                                                \
        uint8_t *out_ = (uint8_t *)malloc((n) + 1);                                  \
        size_t written_ = 0;                                                         \
        CHECK(T##_encode(&(v), out_, (n), &written_, NULL) == WL_OK);                \
        CHECK(written_ == (n) && memcmp(out_, (bytes), (n)) == 0);                   \
        if ((n) > 0) CHECK(T##_encode(&(v), out_, (n) - 1, &written_, NULL) != WL_OK); \
        free(out_);                                                                  \
        wl_buf buf_;                                                                 \
        wl_buf_init(&buf_);                                                          \
        CHECK(T##_encode_buf(&(v), &buf_, NULL) == WL_OK);                           \
        CHECK(buf_.len == (n) && ((n) == 0 || memcmp(buf_.data, (bytes), (n)) == 0)); \
        wl_buf_free(&buf_);                                                          \
    } while (0)

#define BYTE(M, T)                                                                   \
    static void byte_##M##_##T(const uint8_t *b, size_t n) {                          \
        wl_arena arena;                                                              \
        wl_arena_init_heap(&arena);                                                  \
        wl_error err;                                                                \
        M##_##T v;                                                                   \
        M##_##T##_view w;                                                            \
        size_t used = 0, wused = 0;                                                  \
        wl_status s = M##_##T##_decode(b, n, &v, &arena, &err);                      \
        if (s == WL_OK) REENCODE(M##_##T, v, b, n);                                  \
        wl_arena_reset(&arena);                                                      \
        wl_status sv = M##_##T##_decode_view(b, n, &w, &arena, &err);                \
        CHECK((s == WL_OK) == (sv == WL_OK));                                        \
        wl_arena_reset(&arena);                                                      \
        wl_status sp = M##_##T##_decode_prefix(b, n, &v, &used, &arena, &err);       \
        if (sp == WL_OK) {                                                           \
            CHECK(used <= n);                                                        \
            CHECK((s == WL_OK) == (used == n));                                      \
            REENCODE(M##_##T, v, b, used);                                           \
        } else {                                                                     \
            CHECK(s != WL_OK);                                                       \
        }                                                                            \
        wl_arena_reset(&arena);                                                      \
        wl_status svp = M##_##T##_decode_view_prefix(b, n, &w, &wused, &arena, &err); \
        CHECK((sp == WL_OK) == (svp == WL_OK));                                      \
        if (svp == WL_OK) CHECK(wused == used);                                      \
        wl_arena_free(&arena);                                                       \
    }

#define MESSAGE(M, T)                                                                \
    static void message_##M##_##T(const uint8_t *b, size_t n) {                       \
        wl_arena arena;                                                              \
        wl_arena_init_heap(&arena);                                                  \
        M##_##T v;                                                                   \
        M##_##T##_view w;                                                            \
        M##_Message any;                                                             \
        size_t used = 0;                                                             \
        wl_status s = M##_##T##_decode_message(b, n, &v, &arena, NULL);              \
        if (s == WL_OK) {                                                            \
            wl_buf buf;                                                              \
            wl_buf_init(&buf);                                                       \
            CHECK(M##_##T##_encode_message_buf(&v, &buf, NULL) == WL_OK);            \
            CHECK(buf.len == n && memcmp(buf.data, b, n) == 0);                      \
            wl_buf_free(&buf);                                                       \
        }                                                                            \
        wl_arena_reset(&arena);                                                      \
        wl_status sv = M##_##T##_decode_message_view(b, n, &w, &arena, NULL);        \
        CHECK((s == WL_OK) == (sv == WL_OK));                                        \
        wl_arena_reset(&arena);                                                      \
        wl_status sp = M##_##T##_decode_message_prefix(b, n, &v, &used, &arena, NULL); \
        if (sp == WL_OK) {                                                           \
            CHECK(used <= n && (s == WL_OK) == (used == n));                         \
        } else {                                                                     \
            CHECK(s != WL_OK);                                                       \
        }                                                                            \
        wl_arena_reset(&arena);                                                      \
        wl_status sa = M##_Message_decode(b, n, &any, &arena, NULL);                 \
        if (s == WL_OK) CHECK(sa == WL_OK);                                          \
        if (sa == WL_OK) {                                                           \
            wl_buf buf;                                                              \
            wl_buf_init(&buf);                                                       \
            CHECK(M##_Message_encode_buf(&any, &buf, NULL) == WL_OK);                \
            CHECK(buf.len == n && memcmp(buf.data, b, n) == 0);                      \
            wl_buf_free(&buf);                                                       \
        }                                                                            \
        wl_arena_free(&arena);                                                       \
    }

#include "targets.inc"
#undef BYTE
#undef MESSAGE

typedef void (*target_fn)(const uint8_t *, size_t);
#define BYTE(M, T) byte_##M##_##T,
#define MESSAGE(M, T) message_##M##_##T,
static const target_fn TARGETS[] = {
#include "targets.inc"
};
#define COUNT (sizeof TARGETS / sizeof TARGETS[0])

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    size_t pick = ((size_t)data[0] | (size_t)data[1] << 8) % COUNT;
    // A copy of exactly the input, so ASan sees any read past its end.
    size_t n = size - 2;
    uint8_t *copy = (uint8_t *)malloc(n ? n : 1);
    memcpy(copy, data + 2, n);
    TARGETS[pick](copy, n);
    free(copy);
    return 0;
}
