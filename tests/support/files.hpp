#pragma once
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace pathlock::testing {

// The whole file, or "" if it cannot be read.
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace pathlock::testing
