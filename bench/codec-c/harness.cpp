// Benchmark of the generated C and C++ codecs (bench/codec-c/run builds and runs it).
//
// usage: harness [--quick] [--only DATA_SET]... [--op OPERATION]... VECTORS_DIR
//
// Per data set (the golden vectors' bytes, read from files at run time) and language:
//   memcpy         copy the encoded bytes into a reused buffer (the physical limit)
//   memcpy-fresh   malloc + memcpy + free
//   encode         append to a reused buffer (C: wl_buf after wl_buf_clear; C++: a
//                  std::vector after clear())
//   encode-buf     C++ only: append to a reused wirelens::Buffer after clear() (grows without
//                  zero-filling, as C's wl_buf)
//   encode-slice   into a reused caller buffer (C: T_encode; C++: encode_into(buf, cap)): the
//                  "encode (reused buffer)" row of the upstream-bench kit
//   encode-fresh   a new exact-size buffer per encode (C: T_size + malloc + T_encode +
//                  free; C++: to_bytes())
//   decode         owned values (C: into a heap arena reset before each decode, so warm
//                  decodes allocate nothing; C++: std::string / std::vector members, or
//                  with -DWL_CPP_ARENA wirelens::ArenaString / ArenaVector in an arena reset
//                  before each decode)
//   decode-reuse   C++ only: owned values, every record decoded into one value with
//                  decode_prefix_from, which reuses its vectors' and strings' storage
//   copy           C++ only: a copy of every decoded record (T's copy constructor): the
//                  allocations and copying that decode into a new value cannot avoid with
//                  std::string / std::vector members (a floor for decode, not an API)
//   decode-view    zero-copy (strings and primitive arrays point into the input; built with
//                  -DWL_CPP_ARENA for code generated with [generate.cpp] memory = "arena",
//                  the arrays of views are in a wirelens::Arena reset before each decode)
// Every record of a case is decoded with *_decode_prefix, back to back. --op (e.g.
// cpp-decode, for perf) runs only the named operations; the memcpy baselines always run.
//
// Method: each operation is calibrated to a batch of at least 2 ms (quick: 1 ms), warmed
// up for 0.3 s (quick: 0.1 s), then timed in 41 batches (quick: 15) with
// steady_clock; the per-operation median and median absolute deviation are printed as
//   RESULT <data set> <lang>-<op> <median ns> <mad ns>
// Inputs go through an opaque register barrier (launder) and results through an
// opaque "use" barrier, so no compiler can constant-fold or drop the work.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../barriers.hpp"

#ifdef WL_BENCH_C
#include "c/array_int.h"
#include "c/array_string.h"
#include "c/array_struct.h"
#include "c/arrays.h"
#include "c/audiounit.h"
#include "c/complex.h"
#endif
#ifdef WL_BENCH_CPP
#include "cpp/array_int.hpp"
#include "cpp/array_string.hpp"
#include "cpp/array_struct.hpp"
#include "cpp/arrays.hpp"
#include "cpp/audiounit.hpp"
#include "cpp/complex.hpp"
#endif

namespace {

bool quick = false;
std::vector<std::string> only;  // --only: the data sets to run (all when empty)

std::vector<std::string> ops;   // --op: the operations to run (all when empty)

bool selected(const char* ds) { return only.empty() || std::find(only.begin(), only.end(), ds) != only.end(); }
bool want(const char* op) { return ops.empty() || std::find(ops.begin(), ops.end(), op) != ops.end(); }

struct Stat {
    double median, mad;
};

template <class F>
Stat measure(F&& f) {
    using clock = std::chrono::steady_clock;
    const double batch_s = quick ? 1e-3 : 2e-3;
    const double warm_s = quick ? 0.1 : 0.3;
    const int samples = quick ? 15 : 41;
    auto run = [&](uint64_t n) {
        auto t0 = clock::now();
        for (uint64_t i = 0; i < n; i++) f();
        return std::chrono::duration<double>(clock::now() - t0).count();
    };
    uint64_t iters = 1;
    while (run(iters) < batch_s) iters *= 2;
    auto warm_end = clock::now() + std::chrono::duration<double>(warm_s);
    while (clock::now() < warm_end) run(iters);
    std::vector<double> per;
    for (int s = 0; s < samples; s++) per.push_back(run(iters) / double(iters) * 1e9);
    std::sort(per.begin(), per.end());
    double med = per[per.size() / 2];
    std::vector<double> dev;
    for (double x : per) dev.push_back(x > med ? x - med : med - x);
    std::sort(dev.begin(), dev.end());
    return {med, dev[dev.size() / 2]};
}

void report(const char* ds, const char* what, Stat s) {
    std::printf("RESULT %s %s %.1f %.1f\n", ds, what, s.median, s.mad);
    std::fflush(stdout);
}

std::vector<uint8_t> read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        std::fprintf(stderr, "harness: cannot read %s\n", path.c_str());
        std::exit(1);
    }
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

void baselines(const char* ds, const char* lang, const std::vector<uint8_t>& bytes) {
    const size_t n = bytes.size();
    // glibc's memcpy of a few KB and more is `rep movsb`, many times slower when the
    // destination sits a little above the source modulo 4 KiB, so where the two
    // allocations happened to land decided the baseline (seen: 66 and 1,747 ns for the
    // same 5.2 KB in two runs). The destination is put 2 KiB from the source modulo 4 KiB
    // (memcpy's good case) in every run: the limit stays the fastest copy of the bytes.
    std::vector<uint8_t> store(n + 4096);
    const auto s = reinterpret_cast<uintptr_t>(bytes.data());
    const auto d = reinterpret_cast<uintptr_t>(store.data());
    uint8_t* dst = store.data() + ((s + 2048 - d) & 4095);
    std::string name = std::string(lang) + "-memcpy";
    report(ds, name.c_str(), measure([&] {
               std::memcpy(launder(dst), launder(bytes.data()), n);
               use(dst);
           }));
    name = std::string(lang) + "-memcpy-fresh";
    report(ds, name.c_str(), measure([&] {
               auto* p = static_cast<uint8_t*>(std::malloc(n));
               std::memcpy(launder(p), launder(bytes.data()), n);
               use(p);
               std::free(p);
           }));
}

void fail(const char* ds, const char* what) {
    std::fprintf(stderr, "harness: %s: %s failed on the vector\n", ds, what);
    std::exit(1);
}

}  // namespace

#ifdef WL_BENCH_C
// T: the C type prefix (e.g. audiounit_PluginRegistry).
#define C_DATASET(DS, FILE, T)                                                                             \
    do {                                                                                                   \
        if (!selected(DS)) break;                                                                          \
        const std::vector<uint8_t> bytes = read_file(dir + "/" FILE);                                      \
        baselines(DS, "c", bytes);                                                                         \
        wl_arena keep_arena;                                                                               \
        wl_arena_init_heap(&keep_arena);                                                                   \
        std::vector<T> recs;                                                                               \
        for (size_t at = 0; at < bytes.size();) {                                                          \
            T v;                                                                                           \
            size_t used = 0;                                                                               \
            if (T##_decode_prefix(bytes.data() + at, bytes.size() - at, &v, &used, &keep_arena, NULL) !=   \
                WL_OK)                                                                                     \
                fail(DS, "C decode");                                                                      \
            recs.push_back(v);                                                                             \
            at += used;                                                                                    \
        }                                                                                                  \
        wl_buf out;                                                                                        \
        wl_buf_init(&out);                                                                                 \
        for (auto& r : recs)                                                                               \
            if (T##_encode_buf(&r, &out, NULL) != WL_OK) fail(DS, "C encode");                             \
        if (out.len != bytes.size() || std::memcmp(out.data, bytes.data(), out.len) != 0)                  \
            fail(DS, "C re-encode");                                                                       \
        if (want("c-encode")) report(DS, "c-encode", measure([&] {                                         \
                   wl_buf_clear(&out);                                                                     \
                   for (auto& r : recs) T##_encode_buf(launder(&r), &out, NULL);                           \
                   use(out.data);                                                                          \
               }));                                                                                        \
        std::vector<uint8_t> slice(bytes.size());                                                          \
        {                                                                                                  \
            size_t at = 0;                                                                                 \
            for (auto& r : recs) {                                                                         \
                size_t written = 0;                                                                        \
                if (T##_encode(&r, slice.data() + at, slice.size() - at, &written, NULL) != WL_OK)         \
                    fail(DS, "C encode (caller buffer)");                                                  \
                at += written;                                                                             \
            }                                                                                              \
            if (at != bytes.size() || slice != bytes) fail(DS, "C re-encode (caller buffer)");             \
        }                                                                                                  \
        if (want("c-encode-slice")) report(DS, "c-encode-slice", measure([&] {                             \
                   uint8_t* p = slice.data();                                                              \
                   size_t left = slice.size();                                                             \
                   for (auto& r : recs) {                                                                  \
                       size_t written = 0;                                                                 \
                       T##_encode(launder(&r), p, left, &written, NULL);                                   \
                       p += written;                                                                       \
                       left -= written;                                                                    \
                   }                                                                                       \
                   use(slice.data());                                                                      \
               }));                                                                                        \
        if (want("c-encode-fresh")) report(DS, "c-encode-fresh", measure([&] {                             \
                   for (auto& r : recs) {                                                                  \
                       const T* p = launder(&r);                                                           \
                       size_t size = T##_size(p), written = 0;                                             \
                       auto* buf = static_cast<uint8_t*>(std::malloc(size));                               \
                       T##_encode(p, buf, size, &written, NULL);                                           \
                       use(buf);                                                                           \
                       std::free(buf);                                                                     \
                   }                                                                                       \
               }));                                                                                        \
        wl_arena arena;                                                                                    \
        wl_arena_init_heap(&arena);                                                                        \
        if (want("c-decode")) report(DS, "c-decode", measure([&] {                                         \
                   wl_arena_reset(&arena);                                                                 \
                   const uint8_t* b = launder(bytes.data());                                               \
                   for (size_t at = 0; at < bytes.size();) {                                               \
                       T v;                                                                                \
                       size_t used = 0;                                                                    \
                       if (T##_decode_prefix(b + at, bytes.size() - at, &v, &used, &arena, NULL) != WL_OK) \
                           std::abort();                                                                   \
                       use(v);                                                                             \
                       at += used;                                                                         \
                   }                                                                                       \
               }));                                                                                        \
        if (want("c-decode-view")) report(DS, "c-decode-view", measure([&] {                               \
                   wl_arena_reset(&arena);                                                                 \
                   const uint8_t* b = launder(bytes.data());                                               \
                   for (size_t at = 0; at < bytes.size();) {                                               \
                       T##_view v;                                                                         \
                       size_t used = 0;                                                                    \
                       if (T##_decode_view_prefix(b + at, bytes.size() - at, &v, &used, &arena, NULL) !=   \
                           WL_OK)                                                                          \
                           std::abort();                                                                   \
                       use(v);                                                                             \
                       at += used;                                                                         \
                   }                                                                                       \
               }));                                                                                        \
        wl_arena_free(&arena);                                                                             \
        wl_arena_free(&keep_arena);                                                                        \
        wl_buf_free(&out);                                                                                 \
    } while (0)
#endif

#ifdef WL_BENCH_CPP
// The operations' language label: "cpp", or e.g. "cpp-compact" for a build of the code
// generated with [generate.cpp] strings = "compact" (bench/codec-c/run).
#ifndef WL_CPP_LABEL
#define WL_CPP_LABEL "cpp"
#endif
// The decoders' extra argument: the arena of code generated with memory = "arena", reset
// before each batch of decodes (the values of the previous batch are gone by then).
#ifdef WL_CPP_ARENA
#define CPP_ARENA_ARG , arena
#define CPP_ARENA_RESET arena.reset()
#else
#define CPP_ARENA_ARG
#define CPP_ARENA_RESET (void)0
#endif
// decode-reuse: every record decoded into one value with decode_prefix_from (its storage
// reused; std::string / std::vector members only: the arena builds reset their arena).
#ifdef WL_CPP_ARENA
#define CPP_DECODE_REUSE(DS, T) (void)0
#else
#define CPP_DECODE_REUSE(DS, T)                                                                            \
    do {                                                                                                   \
        T reused;                                                                                          \
        if (want(WL_CPP_LABEL "-decode-reuse")) report(DS, WL_CPP_LABEL "-decode-reuse", measure([&] {     \
                   const uint8_t* b = launder(bytes.data());                                               \
                   for (size_t at = 0; at < bytes.size();) {                                               \
                       auto r = reused.decode_prefix_from(b + at, bytes.size() - at);                      \
                       if (!r.ok()) std::abort();                                                          \
                       use(reused);                                                                        \
                       at += *r;                                                                           \
                   }                                                                                       \
               }));                                                                                        \
    } while (0)
#endif
// copy: every decoded record copied (std::string / std::vector members only; an arena
// build's copies would go to the heap, not the arena).
#ifdef WL_CPP_ARENA
#define CPP_COPY(DS, T) (void)0
#else
#define CPP_COPY(DS, T)                                                                                    \
    do {                                                                                                   \
        if (want(WL_CPP_LABEL "-copy")) report(DS, WL_CPP_LABEL "-copy", measure([&] {                     \
                   for (auto& r : recs) {                                                                  \
                       T c(*launder(&r));                                                                  \
                       use(c);                                                                             \
                   }                                                                                       \
               }));                                                                                        \
    } while (0)
#endif
// T: the C++ type (e.g. audiounit::PluginRegistry).
#define CPP_DATASET(DS, FILE, T)                                                                           \
    do {                                                                                                   \
        if (!selected(DS)) break;                                                                          \
        const std::vector<uint8_t> bytes = read_file(dir + "/" FILE);                                      \
        baselines(DS, WL_CPP_LABEL, bytes);                                                                \
        std::vector<T> recs;                                                                               \
        for (size_t at = 0; at < bytes.size();) {                                                          \
            auto r = T::decode_prefix(bytes.data() + at, bytes.size() - at);                               \
            if (!r.ok()) fail(DS, "C++ decode");                                                           \
            at += r.value().used;                                                                          \
            recs.push_back(std::move(r.value().value));                                                    \
        }                                                                                                  \
        std::vector<uint8_t> out;                                                                          \
        for (auto& r : recs)                                                                               \
            if (!r.encode(out).ok()) fail(DS, "C++ encode");                                               \
        if (out != bytes) fail(DS, "C++ re-encode");                                                       \
        if (want(WL_CPP_LABEL "-encode")) report(DS, WL_CPP_LABEL "-encode", measure([&] {                 \
                   out.clear();                                                                            \
                   for (auto& r : recs) (void)launder(&r)->encode(out);                                        \
                   use(out.data());                                                                        \
               }));                                                                                        \
        wirelens::Buffer wb;                                                                               \
        for (auto& r : recs)                                                                               \
            if (!r.encode(wb).ok()) fail(DS, "C++ encode (Buffer)");                                       \
        if (wb.to_vector() != bytes) fail(DS, "C++ re-encode (Buffer)");                                   \
        if (want(WL_CPP_LABEL "-encode-buf")) report(DS, WL_CPP_LABEL "-encode-buf", measure([&] {         \
                   wb.clear();                                                                             \
                   for (auto& r : recs) (void)launder(&r)->encode(wb);                                     \
                   use(wb.data());                                                                         \
               }));                                                                                        \
        std::vector<uint8_t> slice(bytes.size());                                                          \
        {                                                                                                  \
            size_t at = 0;                                                                                 \
            for (auto& r : recs) {                                                                         \
                auto w = r.encode_into(slice.data() + at, slice.size() - at);                              \
                if (!w.ok()) fail(DS, "C++ encode_into");                                                  \
                at += *w;                                                                                  \
            }                                                                                              \
            if (at != bytes.size() || slice != bytes) fail(DS, "C++ re-encode (encode_into)");             \
        }                                                                                                  \
        if (want(WL_CPP_LABEL "-encode-slice")) report(DS, WL_CPP_LABEL "-encode-slice", measure([&] {     \
                   size_t at = 0;                                                                          \
                   for (auto& r : recs) at += launder(&r)->encode_into(slice.data() + at, slice.size() - at).value(); \
                   use(slice.data());                                                                      \
               }));                                                                                        \
        if (want(WL_CPP_LABEL "-encode-fresh")) report(DS, WL_CPP_LABEL "-encode-fresh", measure([&] {     \
                   for (auto& r : recs) {                                                                  \
                       auto v = launder(&r)->to_bytes();                                                   \
                       use(v.value().data());                                                              \
                   }                                                                                       \
               }));                                                                                        \
        [[maybe_unused]] wirelens::Arena arena;                                                            \
        if (want(WL_CPP_LABEL "-decode")) report(DS, WL_CPP_LABEL "-decode", measure([&] {                 \
                   CPP_ARENA_RESET;                                                                        \
                   const uint8_t* b = launder(bytes.data());                                               \
                   for (size_t at = 0; at < bytes.size();) {                                               \
                       auto r = T::decode_prefix(b + at, bytes.size() - at CPP_ARENA_ARG);                 \
                       if (!r.ok()) std::abort();                                                          \
                       use(r.value().value);                                                               \
                       at += r.value().used;                                                               \
                   }                                                                                       \
               }));                                                                                        \
        CPP_DECODE_REUSE(DS, T);                                                                           \
        CPP_COPY(DS, T);                                                                                   \
        if (want(WL_CPP_LABEL "-decode-view")) report(DS, WL_CPP_LABEL "-decode-view", measure([&] {       \
                   CPP_ARENA_RESET;                                                                         \
                   const uint8_t* b = launder(bytes.data());                                               \
                   for (size_t at = 0; at < bytes.size();) {                                               \
                       auto r = T::decode_view_prefix(b + at, bytes.size() - at CPP_ARENA_ARG);           \
                       if (!r.ok()) std::abort();                                                          \
                       use(r.value().value);                                                               \
                       at += r.value().used;                                                               \
                   }                                                                                       \
               }));                                                                                        \
    } while (0)
#endif

int main(int argc, char** argv) {
    std::string dir;
    for (int i = 1; i < argc; i++) {
        if (std::strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only.push_back(argv[++i]);
        else if (std::strcmp(argv[i], "--op") == 0 && i + 1 < argc)
            ops.push_back(argv[++i]);
        else
            dir = argv[i];
    }
    if (dir.empty()) {
        std::fprintf(stderr, "usage: harness [--quick] [--only DATA_SET]... [--op OPERATION]... VECTORS_DIR\n");
        return 2;
    }
#ifdef WL_BENCH_C
    C_DATASET("sdp-audiounit", "sdp/cases/audiounit_full.bin", audiounit_PluginRegistry);
    C_DATASET("sdp-arrays", "sdp/cases/arrays_primitives_all.bin", arrays_ArraysOfPrimitives);
    // One 141-byte record: per-call overhead (issue 14).
    C_DATASET("sdp-arrays-first", "sdp/cases/arrays_primitives_first.bin", arrays_ArraysOfPrimitives);
    C_DATASET("ffi-complex", "ffi/cases/complex.canon.bin", complex_PluginListMessage);
    C_DATASET("ffi-array-int", "ffi/cases/array_int.canon.bin", array_int_IntListMessage);
    C_DATASET("ffi-array-struct", "ffi/cases/array_struct.canon.bin", array_struct_DeviceListMessage);
    C_DATASET("ffi-array-string", "ffi/cases/array_string.canon.bin", array_string_StringListMessage);
#endif
#ifdef WL_BENCH_CPP
    CPP_DATASET("sdp-audiounit", "sdp/cases/audiounit_full.bin", audiounit::PluginRegistry);
    CPP_DATASET("sdp-arrays", "sdp/cases/arrays_primitives_all.bin", arrays::ArraysOfPrimitives);
    // One 141-byte record: per-call overhead (issue 14).
    CPP_DATASET("sdp-arrays-first", "sdp/cases/arrays_primitives_first.bin", arrays::ArraysOfPrimitives);
    CPP_DATASET("ffi-complex", "ffi/cases/complex.canon.bin", complex::PluginListMessage);
    CPP_DATASET("ffi-array-int", "ffi/cases/array_int.canon.bin", array_int::IntListMessage);
    CPP_DATASET("ffi-array-struct", "ffi/cases/array_struct.canon.bin", array_struct::DeviceListMessage);
    CPP_DATASET("ffi-array-string", "ffi/cases/array_string.canon.bin", array_string::StringListMessage);
#endif
    return 0;
}
