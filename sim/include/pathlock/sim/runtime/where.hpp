#pragma once
// The file:line of an operation, taken as a defaulted argument where the
// operation is called. Where would do, but libstdc++ 12
// provides it only to compilers with __builtin_source_location (not
// clang 14, the sanitizer builds' compiler); __builtin_FILE/LINE work in both.

namespace pathlock::sim::runtime {

class Where {
 public:
  static constexpr Where current(const char* file = __builtin_FILE(), unsigned line = __builtin_LINE()) noexcept {
    return Where(file, line);
  }
  constexpr Where() noexcept = default;
  constexpr const char* file_name() const noexcept { return file_; }
  constexpr unsigned line() const noexcept { return line_; }

 private:
  constexpr Where(const char* file, unsigned line) noexcept : file_(file), line_(line) {}
  const char* file_ = "";
  unsigned line_ = 0;
};

}  // namespace pathlock::sim::runtime
