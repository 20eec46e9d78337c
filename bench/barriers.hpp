// Optimisation barriers for the C/C++ benchmark harnesses (bench/codec-c, bench/big):
// inputs pass `launder` (the compiler cannot see where the pointer points, so it cannot
// constant-fold the work) and results pass `use` (it must assume they are read, so it
// cannot drop the work). Included by relative path, so no include flags are needed.
#pragma once

template <class T>
inline void use(T const& v) {
    asm volatile("" : : "r,m"(v) : "memory");
}

template <class T>
inline T* launder(T* p) {
    asm volatile("" : "+r"(p));
    return p;
}
