// libFuzzer: S3 key -> path. Any input is either rejected with an InputError
// or maps to a path whose key is the input less one trailing '/'.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "pathlock/model/error.hpp"
#include "pathlock/model/path.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string key(reinterpret_cast<const char*>(data), size);
  try {
    const auto p = pathlock::model::Path::from_key(key);
    std::string expect = key;
    if (!expect.empty() && expect.back() == '/') expect.pop_back();
    if (p.key() != expect) std::abort();
    if (pathlock::model::Path::parse(p.str()) != p) std::abort();
    if (p.depth() != p.components().size()) std::abort();
  } catch (const pathlock::model::InputError&) {
  }
  return 0;
}
