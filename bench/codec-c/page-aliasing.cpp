// The generated C++ codec of ffi array_int (20,000 bytes of int32) when the copy of its
// elements has its destination a few bytes above its source modulo 4 KiB, where glibc's
// `rep movsb` (2.38 and earlier, AMD Zen 3/4) is 10-25x slower; the runtime copies such
// placements in 64-byte blocks (detail::copy_long). docs/benchmarks/history.md "#14 session 9".
//
//   cargo build --release -p wirelens
//   target/release/wirelens gen tests/vectors/ffi/schemas/array_int.ffi --lang cpp --out /tmp/pa/cpp
//   g++ -std=c++17 -O2 -I /tmp/pa bench/codec-c/page-aliasing.cpp -o /tmp/pa/page-aliasing
//   /tmp/pa/page-aliasing tests/vectors/ffi/cases/array_int.canon.bin
//
// Prints, per distance (destination - source, modulo 4 KiB), the best of 15 batches in ns
// per call: decode into a new value (the input placed where malloc puts the vector, which
// glibc hands back after each free), decode into a reused value, and encode_into a caller
// buffer. 2048 is a placement far from the window.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "cpp/array_int.hpp"

namespace {

using array_int::IntListMessage;

using wirelens::detail::address_of;

// `size` bytes inside `room` starting at an address congruent to `want` modulo 4 KiB.
uint8_t* placed(std::vector<uint8_t>& room, uintptr_t want) {
    return room.data() + ((want - address_of(room.data())) & 4095);
}

template <class F>
double best_ns(F&& f) {
    double best = 1e300;
    for (int round = 0; round < 15; round++) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < 2000; i++) f();
        const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
        best = std::min(best, ns / 2000);
    }
    return best;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: page-aliasing ARRAY_INT_CANON_BIN\n");
        return 2;
    }
    std::ifstream file(argv[1], std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)), {});
    const size_t n = bytes.size();
    std::printf("%8s %10s %12s %10s\n", "distance", "decode", "decode-reuse", "encode");
    std::fflush(stdout);
    for (uintptr_t dist : {uintptr_t{2}, uintptr_t{14}, uintptr_t{24}, uintptr_t{2048}}) {
        std::vector<uint8_t> room(n + 4096);
        // New value: where does the vector go? (glibc returns the freed block next time.)
        uintptr_t storage = 0;
        {
            auto r = IntListMessage::decode(bytes.data(), n);
            if (!r.ok()) return 1;
            storage = address_of(r->value.data());
        }
        uint8_t* in = placed(room, storage - dist - 2);
        std::memcpy(in, bytes.data(), n);
        bool ok = true;
        uintptr_t got = 0;  // where the vector really went
        const double fresh = best_ns([&] {
            auto r = IntListMessage::decode(in, n);
            ok = ok && r.ok() && r->value.size() == (n - 2) / 4;
            got = ok ? address_of(r->value.data()) : 0;
            asm volatile("" : : "r"(&r) : "memory");
        });
        IntListMessage reused;
        if (!reused.decode_from(bytes.data(), n).ok()) return 1;
        in = placed(room, address_of(reused.value.data()) - dist - 2);
        std::memcpy(in, bytes.data(), n);
        const double reuse = best_ns([&] {
            ok = ok && reused.decode_from(in, n).ok();
            asm volatile("" : : "r"(&reused) : "memory");
        });
        std::vector<uint8_t> out_room(n + 4096);
        uint8_t* out = placed(out_room, address_of(reused.value.data()) + dist - 2);
        const double encode = best_ns([&] {
            ok = ok && reused.encode_into(out, n).ok();
            asm volatile("" : : "r"(out) : "memory");
        });
        if (!ok || std::memcmp(out, bytes.data(), n) != 0) {
            std::fprintf(stderr, "page-aliasing: a decode or encode failed at distance %lu\n",
                         static_cast<unsigned long>(dist));
            return 1;
        }
        const unsigned long fresh_dist = static_cast<unsigned long>((got - address_of(in) - 2) & 4095);
        std::printf("%8lu %10.0f %12.0f %10.0f%s\n", static_cast<unsigned long>(dist), fresh, reuse, encode,
                    fresh_dist == dist ? "" : "  (decode: malloc moved the vector)");
    }
    return 0;
}
