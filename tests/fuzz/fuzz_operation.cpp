// libFuzzer: an operation as the CLI reads it: words separated by NUL, the
// first an operation name, the rest paths (leading '/') or keys.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "pathlock/model/conflict.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/model/request.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> words;
  std::size_t start = 0;
  for (;;) {
    const auto end = input.find('\0', start);
    words.push_back(input.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  const auto kind = pathlock::model::op_kind_from_string(words[0]);
  if (!kind) return 0;
  try {
    std::vector<pathlock::model::Path> paths;
    for (std::size_t i = 1; i < words.size(); ++i) {
      paths.push_back(!words[i].empty() && words[i][0] == '/' ? pathlock::model::Path::parse(words[i])
                                                            : pathlock::model::Path::from_key(words[i]));
    }
    const auto op = pathlock::model::Operation::make(*kind, std::move(paths));
    const auto r = op.request();
    if (r.reads().empty() && r.writes().empty()) std::abort();
    if (!pathlock::model::conflicts(r, r) && !r.writes().empty()) std::abort();
  } catch (const pathlock::model::InputError&) {
  }
  return 0;
}
