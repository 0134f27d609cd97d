#include "pathlock/model/error.hpp"

namespace pathlock::model {

std::string_view to_string(InputProblem problem) {
  switch (problem) {
    case InputProblem::kEmptyKey: return "empty key";
    case InputProblem::kKeyTooLong: return "key too long";
    case InputProblem::kNulByte: return "NUL byte";
    case InputProblem::kInvalidUtf8: return "invalid UTF-8";
    case InputProblem::kLeadingSlashInKey: return "leading '/' in key";
    case InputProblem::kEmptyComponent: return "empty component";
    case InputProblem::kMissingLeadingSlash: return "missing leading '/'";
    case InputProblem::kTrailingSlashInPath: return "trailing '/' in path";
    case InputProblem::kSlashInComponent: return "'/' in component";
    case InputProblem::kEmptyRequest: return "empty request";
    case InputProblem::kBadOperation: return "bad operation";
    case InputProblem::kBadParameter: return "bad parameter";
  }
  return "unknown problem";
}

InputError::InputError(InputProblem problem, const std::string& message,
                       std::optional<std::size_t> byte_offset)
    : std::invalid_argument(message), problem_(problem), byte_offset_(byte_offset) {}

}  // namespace pathlock::model
