// Small text helpers shared by the two halves of the comparison reader (core/compare/compare_import.cpp,
// core/compare/compare_lessons.cpp): trimming, CSV fields with quotes, numbers that name their line when
// they are not numbers. Internal to core; verified through tests/test_compare_import.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpulab::core::cmp {

// The first item whose `field` equals `name`, or null: the lookup every imported table offers.
template <typename T>
const T* find_by(const std::vector<T>& items, std::string T::*field, std::string_view name) {
    for (const T& item : items)
        if (item.*field == name) return &item;
    return nullptr;
}

// Throws InputError("<name>: <problem>").
[[noreturn]] void fail(const std::string& name, const std::string& problem);
std::string_view trim(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);
// One CSV line into fields; quoted fields may hold commas and doubled quotes (csv_field writes them).
std::vector<std::string> split_csv(std::string_view line);
// A whole number >= 0, or InputError "<name>: line N: <column> is "<field>", not a whole number >= 0".
int64_t to_int(const std::string& field, const std::string& name, int line_no, std::string_view column);
// A number, or 0 when the field is empty or not one (rates are shown, never computed with).
// A decimal field (empty: 0); anything else, or a non-finite or absurd value, fails with its line.
double to_double(const std::string& field, const std::string& name, int line_no, std::string_view column);

}  // namespace gpulab::core::cmp
