// FindName and EditDistance (include/hairswing/names.h).
#include "hairswing/names.h"

#include <algorithm>
#include <cctype>

namespace hairswing {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string ToLower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

namespace {
std::string Quoted(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names)
    out += (out.empty() ? "" : ", ") +
           (n.empty() ? std::string("(one without a name)") : "\"" + n + "\"");
  return out;
}
}  // namespace

Result<size_t> FindName(const std::string& wanted, const std::vector<std::string>& names,
                        const std::string& what) {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == wanted) return i;
  const std::string low = ToLower(wanted);
  std::vector<size_t> folded;
  for (size_t i = 0; i < names.size(); ++i)
    if (ToLower(names[i]) == low) folded.push_back(i);
  if (folded.size() == 1) return folded[0];
  const std::string head = "no " + what + " named \"" + wanted + "\"";
  if (folded.size() > 1) {
    std::vector<std::string> same;
    same.reserve(folded.size());
    for (size_t i : folded) same.push_back(names[i]);
    return Status(StatusCode::kInvalidInput,
                  head + "; it matches " + Quoted(same) + " ignoring case: give the exact name");
  }
  if (names.empty()) return Status(StatusCode::kInvalidInput, head + " (there are none)");
  std::vector<std::pair<size_t, std::string>> by_distance;
  by_distance.reserve(names.size());
  for (const std::string& n : names) by_distance.emplace_back(EditDistance(low, ToLower(n)), n);
  std::sort(by_distance.begin(), by_distance.end());
  by_distance.erase(std::unique(by_distance.begin(), by_distance.end()), by_distance.end());
  std::vector<std::string> closest;
  for (size_t i = 0; i < by_distance.size() && closest.size() < 5; ++i)
    closest.push_back(by_distance[i].second);
  return Status(
      StatusCode::kInvalidInput,
      head + "; did you mean " + Quoted(closest) +
          (names.size() > closest.size() ? " (" + std::to_string(names.size()) + " in all)"
                                         : std::string()));
}

}  // namespace hairswing
