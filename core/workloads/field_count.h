// How many members an aggregate struct has, at compile time: what lets every serialize function of
// the results store (workload_archive.h) prove it lists each member of its type, so a member added
// later cannot silently come back from disk as its default. Hand-written because Boost.PFR, which
// does this, arrived in Boost 1.75 and Debian 12's Boost is 1.74.
//
// How: T{f, f, ..., f} with N values of a type that converts to anything compiles exactly when N is
// at most T's member count (a C array member takes one value per element, by brace elision).
#pragma once

#include <cstddef>
#include <utility>

namespace gpulab::core {

namespace field_count_detail {

struct AnyValue {
    template <class T>
    constexpr operator T() const noexcept;  // only named inside decltype, never called
};

template <class T, class... Values>
constexpr auto braces_take(int) -> decltype(T{std::declval<Values>()...}, true) {
    return true;
}
template <class T, class...>
constexpr bool braces_take(...) {
    return false;
}

template <class T, std::size_t... I>
constexpr bool takes(std::index_sequence<I...>) {
    return braces_take<T, decltype((void)I, AnyValue{})...>(0);
}

}  // namespace field_count_detail

template <class T, std::size_t N = 0>
constexpr std::size_t field_count() {
    if constexpr (field_count_detail::takes<T>(std::make_index_sequence<N + 1>{}))
        return field_count<T, N + 1>();
    else
        return N;
}

}  // namespace gpulab::core
