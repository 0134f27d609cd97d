#pragma once
// The folder operations of the examples (s3_folders, etcd_folders) on any
// store with S3's guarantees and no more: put, get, erase and list, each
// atomic on its own, nothing spanning two keys. Folders exist only as key
// prefixes, so a folder operation is a sequence of key operations:
//
//   write  /f      put f/part-0 .. f/part-{N-1}, all with one new version
//   remove /f      list f/, delete each key
//   rename /f /g   delete everything under g/, copy each f/ key to g/, delete it from f/
//   copy   /f /g   delete everything under g/, copy each f/ key to g/
//   read   /f      list f/, get each key
//
// Between operations every folder holds no part file or all kParts of them
// with one version: the folder invariant, which torn_folders() checks.

#include <map>
#include <optional>
#include <string>
#include <utility>

#include <fmt/core.h>

#include "pathlock/model/path.hpp"
#include "pathlock/model/request.hpp"

namespace pathlock::examples {

inline constexpr int kParts = 4;

inline std::string prefix_of(const model::Path& folder) { return folder.key() + "/"; }

// Grouped by the folder that directly contains them, each folder must have
// all kParts part files with one version. Returns how many do not.
inline int torn_folders(const std::map<std::string, std::optional<std::string>>& seen) {
  struct Folder {
    int parts = 0;
    bool missing_value = false;
    std::optional<std::string> version;
    bool mixed = false;
  };
  std::map<std::string, Folder> folders;
  for (const auto& [key, value] : seen) {
    Folder& f = folders[key.substr(0, key.rfind('/'))];
    ++f.parts;
    if (!value) {
      f.missing_value = true;  // listed, then gone before the get
    } else if (!f.version) {
      f.version = value;
    } else if (*f.version != *value) {
      f.mixed = true;
    }
  }
  int torn = 0;
  for (const auto& [name, f] : folders) {
    if (f.parts != kParts || f.missing_value || f.mixed) ++torn;
  }
  return torn;
}

// `hold(operation)` returns whatever guard makes the operation atomic (or
// none); it is kept for the operation's key operations.
template <typename Store, typename Hold>
class FolderClient {
 public:
  FolderClient(Store& store, Hold hold) : store_(store), hold_(std::move(hold)) {}

  void write(const model::Path& folder, const std::string& version) {
    auto guard = hold_(model::write(folder));
    for (int i = 0; i < kParts; ++i) store_.put(fmt::format("{}part-{}", prefix_of(folder), i), version);
  }
  void remove(const model::Path& folder) {
    auto guard = hold_(model::remove(folder));
    for (const auto& key : store_.list(prefix_of(folder))) store_.erase(key);
  }
  void rename(const model::Path& from, const model::Path& to) {
    auto guard = hold_(model::rename(from, to));
    move_or_copy(from, to, /*move=*/true);
  }
  void copy(const model::Path& from, const model::Path& to) {
    auto guard = hold_(model::copy(from, to));
    move_or_copy(from, to, /*move=*/false);
  }
  // Returns the number of torn folders the read saw.
  int read(const model::Path& folder) {
    auto guard = hold_(model::read(folder));
    std::map<std::string, std::optional<std::string>> seen;
    for (const auto& key : store_.list(prefix_of(folder))) seen[key] = store_.get(key);
    return torn_folders(seen);
  }

 private:
  void move_or_copy(const model::Path& from, const model::Path& to, bool move) {
    for (const auto& key : store_.list(prefix_of(to))) store_.erase(key);
    const std::string src = prefix_of(from);
    const std::string dst = prefix_of(to);
    for (const auto& key : store_.list(src)) {
      if (auto value = store_.get(key)) store_.put(dst + key.substr(src.size()), *value);
      if (move) store_.erase(key);
    }
  }

  Store& store_;
  Hold hold_;
};

// Folders /data/{a,b,c} and /data/{a,b,c}/inner: writes and reads on both
// levels, renames and copies between unrelated folders.
inline std::vector<model::Path> example_folders() {
  std::vector<model::Path> out;
  for (const char* top : {"a", "b", "c"}) {
    out.push_back(model::Path::parse(fmt::format("/data/{}", top)));
    out.push_back(model::Path::parse(fmt::format("/data/{}/inner", top)));
  }
  return out;
}

// One random operation on `tree` (two unrelated folders for rename and
// copy); returns the torn folders a read saw.
template <typename Client, typename Rng>
int random_operation(Client& client, const std::vector<model::Path>& tree, Rng& rng, const std::string& version) {
  const auto pick = [&] { return tree[rng() % tree.size()]; };
  const model::Path a = pick();
  model::Path b = pick();
  while (a == b || a.is_proper_ancestor_of(b) || b.is_proper_ancestor_of(a)) b = pick();
  switch (rng() % 5) {
    case 0: client.write(a, version); return 0;
    case 1: client.remove(a); return 0;
    case 2: client.rename(a, b); return 0;
    case 3: client.copy(a, b); return 0;
    default: return client.read(a);
  }
}

}  // namespace pathlock::examples
