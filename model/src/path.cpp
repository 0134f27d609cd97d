#include "pathlock/model/path.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pathlock/model/error.hpp"

namespace pathlock::model {
namespace {

// Checks the bytes shared by keys and paths: length, NUL, UTF-8.
// `what` is "key" or "path"; `key_bytes` is the length of the key form.
void check_bytes(std::string_view text, std::string_view what, std::size_t key_bytes) {
  if (key_bytes > kMaxKeyBytes) {
    throw InputError(InputProblem::kKeyTooLong,
                     fmt::format("{} is {} bytes long; S3 keys are at most {} bytes", what,
                                 key_bytes, kMaxKeyBytes));
  }
  if (auto nul = text.find('\0'); nul != std::string_view::npos) {
    throw InputError(InputProblem::kNulByte,
                     fmt::format("{} has a NUL byte at byte offset {}", what, nul), nul);
  }
  if (auto bad = first_invalid_utf8(text); bad != std::string_view::npos) {
    throw InputError(InputProblem::kInvalidUtf8,
                     fmt::format("{} is not valid UTF-8: ill-formed sequence at byte offset {}",
                                 what, bad),
                     bad);
  }
}

// Counts components of "c1/c2/.../cn" (no leading or trailing '/'), rejecting
// empty ones. `base` is the offset of `body` inside the caller's input.
std::size_t count_components(std::string_view body, std::string_view what, std::size_t base) {
  std::size_t depth = 0;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = body.find('/', start);
    const std::size_t len = (end == std::string_view::npos ? body.size() : end) - start;
    if (len == 0) {
      throw InputError(InputProblem::kEmptyComponent,
                       fmt::format("{} has an empty component at byte offset {} (two '/' in a "
                                   "row); pathlock does not map empty names",
                                   what, base + start),
                       base + start);
    }
    ++depth;
    if (end == std::string_view::npos) return depth;
    start = end + 1;
  }
}

}  // namespace

std::size_t first_invalid_utf8(std::string_view text) noexcept {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;  // no overlong forms
      if (c == 0xED) hi = 0x9F;  // no surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;  // no overlong forms
      if (c == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
    } else {
      return i;
    }
    if (i + len > n) return i;
    if (s[i + 1] < lo || s[i + 1] > hi) return i;
    for (std::size_t k = 2; k < len; ++k) {
      if (s[i + k] < 0x80 || s[i + k] > 0xBF) return i;
    }
    i += len;
  }
  return std::string_view::npos;
}

Path Path::parse(std::string_view text) {
  if (text.empty() || text.front() != '/') {
    throw InputError(InputProblem::kMissingLeadingSlash,
                     fmt::format("path \"{}\" does not start with '/' (write paths in full, "
                                 "like /a/b; S3 keys like a/b are a different syntax)",
                                 text),
                     0);
  }
  if (text.size() == 1) return Path();
  check_bytes(text, "path", text.size() - 1);
  if (text.back() == '/') {
    throw InputError(InputProblem::kTrailingSlashInPath,
                     fmt::format("path \"{}\" ends with '/'; write /a/b, not /a/b/", text),
                     text.size() - 1);
  }
  const std::size_t depth = count_components(text.substr(1), "path", 1);
  return Path(std::string(text), depth);
}

Path Path::from_key(std::string_view key) {
  if (key.empty()) {
    throw InputError(InputProblem::kEmptyKey, "key is empty; S3 keys are 1 to 1,024 bytes");
  }
  check_bytes(key, "key", key.size());
  if (key.front() == '/') {
    throw InputError(InputProblem::kLeadingSlashInKey,
                     "key starts with '/', which would be an empty first component; pathlock "
                     "rejects empty components",
                     0);
  }
  std::string_view body = key;
  if (body.back() == '/') body.remove_suffix(1);  // folder marker: names its folder
  const std::size_t depth = count_components(body, "key", 0);
  std::string text;  // not "/" + std::string(body): GCC 12 warns falsely (PR 105651)
  text.reserve(body.size() + 1);
  text.push_back('/');
  text.append(body);
  return Path(std::move(text), depth);
}

Path Path::from_components(const std::vector<std::string>& components) {
  Path p;
  for (const auto& c : components) p = p.child(c);
  return p;
}

std::vector<std::string_view> Path::components() const {
  std::vector<std::string_view> out;
  out.reserve(depth_);
  std::string_view rest(text_);
  while (rest.size() > 1) {
    rest.remove_prefix(1);
    const auto end = rest.find('/');
    out.push_back(rest.substr(0, end));
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end);
  }
  return out;
}

Path Path::parent() const {
  const auto slash = text_.rfind('/');
  if (slash == 0) return Path();
  return Path(text_.substr(0, slash), depth_ - 1);
}

Path Path::child(std::string_view component) const {
  if (component.empty()) {
    throw InputError(InputProblem::kEmptyComponent, "component is empty");
  }
  if (auto slash = component.find('/'); slash != std::string_view::npos) {
    throw InputError(InputProblem::kSlashInComponent,
                     fmt::format("component \"{}\" contains '/' at byte offset {}", component,
                                 slash),
                     slash);
  }
  std::string text;
  text.reserve(text_.size() + 1 + component.size());
  text.append(text_);
  if (!is_root()) text.push_back('/');
  text.append(component);
  check_bytes(component, "component", text.size() - 1);
  return Path(std::move(text), depth_ + 1);
}

std::vector<Path> Path::proper_ancestors() const {
  std::vector<Path> out;
  out.reserve(depth_);
  if (is_root()) return out;
  out.emplace_back();
  for (std::size_t i = 1; i < text_.size(); ++i) {
    if (text_[i] == '/') out.push_back(Path(text_.substr(0, i), out.size()));
  }
  return out;
}

bool Path::is_proper_ancestor_of(const Path& other) const noexcept {
  if (other.depth_ <= depth_) return false;
  if (is_root()) return true;
  return other.text_.size() > text_.size() && other.text_[text_.size()] == '/' &&
         std::string_view(other.text_).starts_with(text_);
}

std::strong_ordering compare_path_text(std::string_view a, std::string_view b) noexcept {
  // Byte-wise, with '/' below every other byte: equal to component-wise order,
  // since components contain neither '/' nor NUL.
  const auto rank = [](char c) { return c == '/' ? -1 : static_cast<int>(static_cast<unsigned char>(c)); };
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return rank(a[i]) <=> rank(b[i]);
  }
  return a.size() <=> b.size();
}

std::size_t path_text_depth(std::string_view text) noexcept {
  return text.size() <= 1 ? 0 : static_cast<std::size_t>(std::count(text.begin(), text.end(), '/'));
}

std::strong_ordering operator<=>(const Path& a, const Path& b) noexcept {
  return compare_path_text(a.text_, b.text_);
}

}  // namespace pathlock::model
