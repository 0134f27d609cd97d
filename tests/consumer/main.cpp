// A program outside pathlock's tree: it locks two folder operations that do
// not conflict and one that does, and prints what happened.
#include <pathlock/path_lock.hpp>
#include <pathlock/version.hpp>

#include <cstdio>

int main() {
  using pathlock::model::Path;
  pathlock::PathLock lock(pathlock::impl::path_rwa_joined_scheme());
  auto copy = lock.copy(Path::parse("/photos/2024"), Path::parse("/backup/2024"));
  auto read = lock.try_acquire(pathlock::model::read(Path::parse("/photos/2023")).request());
  auto write = lock.try_acquire(pathlock::model::write(Path::parse("/backup/2024/a.jpg")).request());
  std::printf("pathlock %s: copy %s, read beside it %s, write into its target %s\n", PATHLOCK_VERSION,
              std::string(pathlock::to_string(copy.status())).c_str(),
              std::string(pathlock::to_string(read.status())).c_str(),
              std::string(pathlock::to_string(write.status())).c_str());
  const bool expected = copy.owns_lock() && read.owns_lock() && write.status() == pathlock::AcquireStatus::kWouldBlock;
  return expected ? 0 : 1;
}
