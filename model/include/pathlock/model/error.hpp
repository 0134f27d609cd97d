#pragma once
// Errors for input that pathlock rejects: S3 keys, paths, requests, files, flags.
// Every rejection carries a code (for tests and programs) and a message that
// names the problem and where it is (for people).

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace pathlock::model {

enum class InputProblem {
  kEmptyKey,            // S3 keys are 1 to 1,024 bytes
  kKeyTooLong,          // longer than S3's 1,024-byte limit
  kNulByte,             // a NUL byte anywhere
  kInvalidUtf8,         // not well-formed UTF-8
  kLeadingSlashInKey,   // key "/a": an empty first component
  kEmptyComponent,      // "a//b" or "/a//b"
  kMissingLeadingSlash, // a path must start with '/'
  kTrailingSlashInPath, // "/a/" (keys may end in '/', paths may not)
  kSlashInComponent,    // a single component that contains '/'
  kEmptyRequest,        // a request with no read and no write paths
  kBadOperation,        // unknown operation or wrong number of paths
  kBadParameter,        // an out-of-range or malformed option or file field
};

std::string_view to_string(InputProblem problem);

class InputError : public std::invalid_argument {
 public:
  InputError(InputProblem problem, const std::string& message,
             std::optional<std::size_t> byte_offset = std::nullopt);
  InputProblem problem() const noexcept { return problem_; }
  // Offset of the offending byte in the input, where one byte is to blame.
  std::optional<std::size_t> byte_offset() const noexcept { return byte_offset_; }

 private:
  InputProblem problem_;
  std::optional<std::size_t> byte_offset_;
};

}  // namespace pathlock::model
