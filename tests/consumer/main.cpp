// A program outside pathlock's tree: it locks two folder operations that do
// not conflict and one that does, and prints what happened. It uses the
// public API alone: pathlock/pathlock.hpp, names in namespace pathlock.
#include <pathlock/pathlock.hpp>

#include <cstdio>
#include <stdexcept>
#include <string>

int main() {
  using pathlock::Path;
  pathlock::PathLock lock(pathlock::path_rwa_joined_scheme());
  pathlock::Guard copy = lock.copy(Path::parse("/photos/2024"), Path::parse("/backup/2024"));
  pathlock::Guard read = lock.try_acquire(pathlock::read(Path::parse("/photos/2023")).request());
  pathlock::Guard write = lock.try_acquire(pathlock::write(Path::from_key("backup/2024/a.jpg")).request());
  std::printf("pathlock %s: copy %s, read beside it %s, write into its target %s\n", PATHLOCK_VERSION,
              std::string(pathlock::to_string(copy.status())).c_str(),
              std::string(pathlock::to_string(read.status())).c_str(),
              std::string(pathlock::to_string(write.status())).c_str());
  // The design notes' scheme as first written has a weak join: refused.
  bool refused = false;
  try {
    pathlock::PathLock flawed(pathlock::path_rwa_scheme());
  } catch (const std::invalid_argument& e) {
    refused = true;
    std::printf("path-rwa refused: %s\n", e.what());
  }
  // The async acquire of the installed library: queued behind the copy,
  // granted by its release, on this thread.
  pathlock::AcquireStatus async_status = pathlock::AcquireStatus::kReleased;
  auto pending = lock.async_acquire(pathlock::write(Path::parse("/backup")).request(),
                                    [&](pathlock::Guard g) { async_status = g.status(); });
  const bool queued = async_status == pathlock::AcquireStatus::kReleased;
  copy.release();
  std::printf("async write of /backup: %s until the copy's release, then %s\n", queued ? "queued" : "NOT queued",
              std::string(pathlock::to_string(async_status)).c_str());
  const bool expected = read.owns_lock() && write.status() == pathlock::AcquireStatus::kWouldBlock && refused &&
                        queued && async_status == pathlock::AcquireStatus::kGranted;
  return expected ? 0 : 1;
}
