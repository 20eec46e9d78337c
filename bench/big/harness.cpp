// Big messages (issue 32 item 3): the generated C and C++ codecs of bench/big/big.sdp on
// 64 MB messages, against memcpy of the same bytes in the same process (bench/big/run
// builds and runs it; bench/big/rust.rs is the Rust side, same output format).
//
// usage: harness [--quick] [--only DATA_SET]... DIR   (DIR: the files of bench/big/gen.py)
//
// Data sets: big-f32 (Samples, 16 M floats), big-u8 (Blob, 64 MiB), big-str (Names, 1 M
// strings of 44-76 bytes), and big-f32-1m / big-u8-1m (1 M elements: the view's O(1)
// check). Operations, per language (c, cpp):
//   memcpy          the message's bytes into a reused buffer placed 2 KiB from the source
//                   modulo 4 KiB (the same placement as bench/codec-c; the limit)
//   encode          C: T_encode_buf into a wl_buf after wl_buf_clear; C++: encode() into a
//                   std::vector after clear() (both warm: no allocation)
//   encode-buf      C++: encode() into a wirelens::Buffer after clear()
//   encode-slice    C: T_encode into a caller buffer; C++: encode_into(buf, cap)
//   decode-reuse    owned decode into a reused value. C: T_decode into a heap wl_arena
//                   reset before each decode (it keeps its largest chunk: no allocation once
//                   warm); C++: decode_from into one kept value (its vectors' and strings'
//                   storage reused)
//   decode-view     zero-copy decode (primitive arrays point into the input)
// Method: each operation is calibrated to calls per sample of at least 0.5 ms (one call
// for the 64 MB rows), warmed up with two samples, then the operations of a data set run
// in interleaved rounds (31 rounds; quick: 11), one sample each per round, so that memcpy
// and the codecs see the same machine; per operation the median, the median absolute
// deviation and the fastest round are printed as
//   RESULT <data set> <lang>-<op> <median ns> <mad ns> <min ns>
// (bench/big/run compares the fastest rounds: on a shared machine other processes' memory
// traffic only ever slows a 64 MB copy down, by 20-40 % in some rounds.)
// Inputs pass an opaque register barrier (launder) and results an opaque use.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "../barriers.hpp"

#ifdef WL_BENCH_C
#include "c/big.h"
#endif
#ifdef WL_BENCH_CPP
#include "cpp/big.hpp"
#endif

namespace {

bool quick = false;
std::vector<std::string> only;

bool selected(const char* ds) { return only.empty() || std::find(only.begin(), only.end(), ds) != only.end(); }

struct Op {
    std::string name;
    std::function<void()> f;
};

using clock_type = std::chrono::steady_clock;

double time_calls(const std::function<void()>& f, uint64_t n) {
    auto t0 = clock_type::now();
    for (uint64_t i = 0; i < n; i++) f();
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

// Interleaved rounds over the operations of one data set (see the header).
void run(const char* ds, std::vector<Op>& ops) {
    const int rounds = quick ? 11 : 31;
    std::vector<uint64_t> calls;
    for (auto& op : ops) {
        uint64_t n = 1;
        while (time_calls(op.f, n) < 5e-4) n *= 2;
        calls.push_back(n);
        time_calls(op.f, n);  // warm-up
        time_calls(op.f, n);
    }
    std::vector<std::vector<double>> per(ops.size());
    for (int r = 0; r < rounds; r++) {
        for (size_t k = 0; k < ops.size(); k++) {
            size_t i = (k + r) % ops.size();
            per[i].push_back(time_calls(ops[i].f, calls[i]) / double(calls[i]) * 1e9);
        }
    }
    for (size_t i = 0; i < ops.size(); i++) {
        auto& v = per[i];
        std::sort(v.begin(), v.end());
        double med = v[v.size() / 2];
        std::vector<double> dev;
        for (double x : v) dev.push_back(x > med ? x - med : med - x);
        std::sort(dev.begin(), dev.end());
        std::printf("RESULT %s %s %.1f %.1f %.1f\n", ds, ops[i].name.c_str(), med, dev[dev.size() / 2], v[0]);
    }
    std::fflush(stdout);
}

std::vector<uint8_t> read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        std::fprintf(stderr, "big harness: cannot read %s\n", path.c_str());
        std::exit(1);
    }
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

void fail(const char* ds, const char* what) {
    std::fprintf(stderr, "big harness: %s: %s\n", ds, what);
    std::exit(1);
}

// The memcpy baseline; `store` keeps the destination alive.
Op memcpy_op(const char* lang, const std::vector<uint8_t>& bytes, std::vector<uint8_t>& store) {
    const size_t n = bytes.size();
    store.assign(n + 4096, 1);  // touched: no page faults in the timed copies
    const auto s = reinterpret_cast<uintptr_t>(bytes.data());
    const auto d = reinterpret_cast<uintptr_t>(store.data());
    uint8_t* dst = store.data() + ((s + 2048 - d) & 4095);
    const uint8_t* src = bytes.data();
    return {std::string(lang) + "-memcpy", [dst, src, n] {
                std::memcpy(launder(dst), launder(src), n);
                use(dst);
            }};
}

}  // namespace

#ifdef WL_BENCH_C
// T: the C type (e.g. big_Samples); FULL: false for the 1 M-element view rows.
template <class T, class V>
struct CCodec {
    wl_status (*encode_buf)(const T*, wl_buf*);
    wl_status (*encode)(const T*, uint8_t*, size_t, size_t*);
    wl_status (*decode)(const uint8_t*, size_t, T*, wl_arena*);
    wl_status (*decode_view)(const uint8_t*, size_t, V*, wl_arena*);
};

template <class T, class V>
void c_dataset(const char* ds, const std::string& file, CCodec<T, V> c, bool full) {
    if (!selected(ds)) return;
    const std::vector<uint8_t> bytes = read_file(file);
    std::vector<uint8_t> store;
    std::vector<Op> ops{memcpy_op("c", bytes, store)};
    wl_arena keep;
    wl_arena_init_heap(&keep);
    T value;
    if (c.decode(bytes.data(), bytes.size(), &value, &keep) != WL_OK) fail(ds, "C decode failed");
    wl_buf out;
    wl_buf_init(&out);
    if (c.encode_buf(&value, &out) != WL_OK || out.len != bytes.size() ||
        std::memcmp(out.data, bytes.data(), out.len) != 0)
        fail(ds, "C re-encode differs");
    std::vector<uint8_t> slice(bytes.size());
    size_t written = 0;
    if (c.encode(&value, slice.data(), slice.size(), &written) != WL_OK || slice != bytes)
        fail(ds, "C encode into a caller buffer differs");
    wl_arena arena;
    wl_arena_init_heap(&arena);
    if (full) {
        ops.push_back({"c-encode", [&] {
                           wl_buf_clear(&out);
                           c.encode_buf(launder(&value), &out);
                           use(out.data);
                       }});
        ops.push_back({"c-encode-slice", [&] {
                           size_t w = 0;
                           c.encode(launder(&value), slice.data(), slice.size(), &w);
                           use(slice.data());
                       }});
        ops.push_back({"c-decode-reuse", [&] {
                           wl_arena_reset(&arena);
                           T v;
                           if (c.decode(launder(bytes.data()), bytes.size(), &v, &arena) != WL_OK) std::abort();
                           use(v);
                       }});
    }
    ops.push_back({"c-decode-view", [&] {
                       wl_arena_reset(&arena);
                       V v;
                       if (c.decode_view(launder(bytes.data()), bytes.size(), &v, &arena) != WL_OK) std::abort();
                       use(v);
                   }});
    run(ds, ops);
    wl_arena_free(&arena);
    wl_arena_free(&keep);
    wl_buf_free(&out);
}

#define C_CODEC(T)                                                                                     \
    CCodec<T, T##_view> {                                                                              \
        [](const T* v, wl_buf* o) { return T##_encode_buf(v, o, NULL); },                              \
            [](const T* v, uint8_t* b, size_t cap, size_t* w) { return T##_encode(v, b, cap, w, NULL); }, \
            [](const uint8_t* b, size_t n, T* v, wl_arena* a) { return T##_decode(b, n, v, a, NULL); }, \
            [](const uint8_t* b, size_t n, T##_view* v, wl_arena* a) {                                 \
                return T##_decode_view(b, n, v, a, NULL);                                              \
            }                                                                                          \
    }
#endif

#ifdef WL_BENCH_CPP
template <class T>
void cpp_dataset(const char* ds, const std::string& file, bool full) {
    if (!selected(ds)) return;
    const std::vector<uint8_t> bytes = read_file(file);
    std::vector<uint8_t> store;
    std::vector<Op> ops{memcpy_op("cpp", bytes, store)};
    auto r = T::decode(bytes.data(), bytes.size());
    if (!r.ok()) fail(ds, "C++ decode failed");
    const T value = std::move(r.value());
    std::vector<uint8_t> out;
    if (!value.encode(out).ok() || out != bytes) fail(ds, "C++ re-encode differs");
    wirelens::Buffer wb;
    if (!value.encode(wb).ok() || wb.to_vector() != bytes) fail(ds, "C++ re-encode (Buffer) differs");
    std::vector<uint8_t> slice(bytes.size());
    auto w = value.encode_into(slice.data(), slice.size());
    if (!w.ok() || slice != bytes) fail(ds, "C++ encode_into differs");
    T reused;
    if (!reused.decode_from(bytes.data(), bytes.size()).ok() || !(reused == value))
        fail(ds, "C++ decode_from differs");
    if (full) {
        ops.push_back({"cpp-encode", [&] {
                           out.clear();
                           (void)launder(&value)->encode(out);
                           use(out.data());
                       }});
        ops.push_back({"cpp-encode-buf", [&] {
                           wb.clear();
                           (void)launder(&value)->encode(wb);
                           use(wb.data());
                       }});
        ops.push_back({"cpp-encode-slice", [&] {
                           (void)launder(&value)->encode_into(slice.data(), slice.size());
                           use(slice.data());
                       }});
        ops.push_back({"cpp-decode-reuse", [&] {
                           if (!reused.decode_from(launder(bytes.data()), bytes.size()).ok()) std::abort();
                           use(reused);
                       }});
    }
    ops.push_back({"cpp-decode-view", [&] {
                       auto v = T::decode_view(launder(bytes.data()), bytes.size());
                       if (!v.ok()) std::abort();
                       use(v.value());
                   }});
    run(ds, ops);
}
#endif

int main(int argc, char** argv) {
    std::string dir;
    for (int i = 1; i < argc; i++) {
        if (std::strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only.push_back(argv[++i]);
        else
            dir = argv[i];
    }
    if (dir.empty()) {
        std::fprintf(stderr, "usage: harness [--quick] [--only DATA_SET]... DIR\n");
        return 2;
    }
#ifdef WL_BENCH_C
    c_dataset("big-f32", dir + "/f32-16m.bin", C_CODEC(big_Samples), true);
    c_dataset("big-f32-1m", dir + "/f32-1m.bin", C_CODEC(big_Samples), false);
    c_dataset("big-u8", dir + "/u8-64m.bin", C_CODEC(big_Blob), true);
    c_dataset("big-u8-1m", dir + "/u8-1m.bin", C_CODEC(big_Blob), false);
    c_dataset("big-str", dir + "/str-1m.bin", C_CODEC(big_Names), true);
#endif
#ifdef WL_BENCH_CPP
    cpp_dataset<big::Samples>("big-f32", dir + "/f32-16m.bin", true);
    cpp_dataset<big::Samples>("big-f32-1m", dir + "/f32-1m.bin", false);
    cpp_dataset<big::Blob>("big-u8", dir + "/u8-64m.bin", true);
    cpp_dataset<big::Blob>("big-u8-1m", dir + "/u8-1m.bin", false);
    cpp_dataset<big::Names>("big-str", dir + "/str-1m.bin", true);
#endif
    return 0;
}
