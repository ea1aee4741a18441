// Looking up names a user typed (materials, meshes, clips, commands): exact first, then ignoring
// case when that picks one name, else an error that lists the closest names.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "hairswing/status.h"

namespace hairswing {

/// `s` with ASCII letters in lower case (for comparisons that ignore case).
std::string ToLower(std::string s);

/// Levenshtein distance (insertions, deletions, substitutions), for "did you mean".
size_t EditDistance(std::string_view a, std::string_view b);

/// The index of `wanted` in `names`: the exact name if present; else the only name equal to it
/// ignoring case; else kInvalidInput: `no WHAT named "wanted"` with the names that differ only in
/// case (ambiguous) or the closest ones ("did you mean ..."; up to 5, by edit distance).
Result<size_t> FindName(const std::string& wanted, const std::vector<std::string>& names,
                        const std::string& what);

}  // namespace hairswing
