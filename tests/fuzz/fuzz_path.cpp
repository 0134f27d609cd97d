// libFuzzer: path syntax. Accepted paths round-trip through their text, their
// key and their components; everything else is an InputError.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "pathlock/model/conflict.hpp"
#include "pathlock/model/error.hpp"
#include "pathlock/model/path.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto p = pathlock::model::Path::parse(text);
    if (p.str() != text) std::abort();
    if (!p.is_root() && pathlock::model::Path::from_key(p.key()) != p) std::abort();
    const auto ancestors = p.proper_ancestors();
    if (ancestors.size() != p.depth()) std::abort();
    for (const auto& a : ancestors) {
      if (!a.is_proper_ancestor_of(p) || !pathlock::model::related(a, p)) std::abort();
    }
  } catch (const pathlock::model::InputError&) {
  }
  return 0;
}
