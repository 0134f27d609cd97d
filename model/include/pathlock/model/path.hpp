#pragma once
// Paths of pseudo-folders, and the mapping from S3 keys to paths.
//
// A path is the root "/" or "/c1/c2/.../cn" with n >= 1 non-empty components.
// Every path is a pseudo-folder, also one that is an object's key.
//
// S3 key -> path (proofs/design.md, "Paths and S3 keys"): split the key on '/'.
//   "a/b/c"  -> /a/b/c
//   "a/b/"   -> /a/b     a trailing '/' (a console "folder marker") names the
//                        folder it ends. This merges key "a/b/" with key "a/b",
//                        which only adds locking: "a/b/" lies below /a/b anyway,
//                        and /a/b's lineage contains the exact lineage of "a/b/".
//   "a/./.." -> /a/./..  '.' and '..' are ordinary names. S3 never normalises
//                        them, and normalising would break prefix semantics:
//                        "a/../b" starts with "a/", so it lies below /a.
// Rejected, with an InputError naming the problem and the byte offset:
//   ""                   empty key (S3 keys are 1 to 1,024 bytes)
//   > 1,024 bytes        longer than S3 allows
//   NUL byte, invalid UTF-8
//   "/a", "a//b", "a//"  an empty component; such keys would need a path with
//                        an empty name, which no file system has. Rejecting is
//                        safer than merging "a//b" into "a/b" (that would
//                        relate unrelated keys in one place and unrelate
//                        related ones in another).
// Path -> key: "/a/b" -> "a/b"; the root maps to the empty prefix "".
//
// Order: operator<=> compares component by component (so "/a" < "/a/b" <
// "/ab"): byte-wise with '/' below every other byte. It is a strict total
// order in which every ancestor precedes its descendants.

#include <compare>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace pathlock::model {

inline constexpr std::size_t kMaxKeyBytes = 1024;

class Path {
 public:
  // The root "/".
  Path() : text_("/") {}
  static Path root() { return Path(); }

  // Parses "/a/b". Throws InputError on anything that is not a valid path.
  static Path parse(std::string_view text);
  // Maps an S3 key to its path (see above). Throws InputError.
  static Path from_key(std::string_view key);
  // Builds a path from components; each must be a valid component.
  static Path from_components(const std::vector<std::string>& components);

  // "/a/b".
  const std::string& str() const noexcept { return text_; }
  // "a/b"; "" for the root.
  std::string key() const { return is_root() ? std::string() : text_.substr(1); }

  bool is_root() const noexcept { return text_.size() == 1; }
  std::size_t depth() const noexcept { return depth_; }
  std::vector<std::string_view> components() const;

  // REQUIRES: !is_root().
  Path parent() const;
  // Child named `component`; throws InputError if it is not a valid component.
  Path child(std::string_view component) const;
  // Proper ancestors, root first; empty for the root.
  std::vector<Path> proper_ancestors() const;

  // True iff this path is a strict ancestor of `other` (prefix at a component
  // boundary: "/a" is an ancestor of "/a/b" but not of "/ab").
  bool is_proper_ancestor_of(const Path& other) const noexcept;

  friend bool operator==(const Path& a, const Path& b) noexcept { return a.text_ == b.text_; }
  friend std::strong_ordering operator<=>(const Path& a, const Path& b) noexcept;

 private:
  Path(std::string text, std::size_t depth) : text_(std::move(text)), depth_(depth) {}
  std::string text_;
  std::size_t depth_ = 0;
};

// The order and depth of canonical path text ("/" or "/a/b"), for code that
// works on views of paths without building Path objects.
// Component-wise order: byte-wise with '/' below every other byte.
std::strong_ordering compare_path_text(std::string_view a, std::string_view b) noexcept;
// Number of components: 0 for "/".
std::size_t path_text_depth(std::string_view text) noexcept;

// Byte offset of the first ill-formed UTF-8 sequence, or npos if `text` is
// well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF).
std::size_t first_invalid_utf8(std::string_view text) noexcept;

}  // namespace pathlock::model

template <>
struct std::hash<pathlock::model::Path> {
  std::size_t operator()(const pathlock::model::Path& p) const noexcept {
    return std::hash<std::string>{}(p.str());
  }
};
